/** Serdes for pipelines: the common ones, usable by class name wherever the runtime needs one. */
package io.millrace.dsl.serde;
