/**
 * The job SPI: how a way of writing jobs other than a {@code task.class} (the DSL's pipelines,
 * Samza's jobs as they are) turns its configuration into a Millrace job before the job is
 * validated and planned.
 */
package io.millrace.spi.job;
