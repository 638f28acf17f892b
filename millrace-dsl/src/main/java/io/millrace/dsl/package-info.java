/**
 * The high-level API: a job as a pipeline of operators ({@link io.millrace.dsl.StreamApplication},
 * {@link io.millrace.dsl.MessageStream}), on event time, compiled onto one task class and the
 * runtime's stores. See docs/dsl.md.
 */
package io.millrace.dsl;
