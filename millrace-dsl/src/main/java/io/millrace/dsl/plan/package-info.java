/**
 * A pipeline as data: the nodes an application's operators make, the stores and streams they
 * name. The API builds it; the translator and the runtime read it.
 */
package io.millrace.dsl.plan;
