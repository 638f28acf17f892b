/**
 * What {@code millrace plan} shows of a job (its streams, stores and operators), the text file
 * it saves that in, and the comparison of two such plans that says which state a change orphans.
 */
package io.millrace.core.plan;
