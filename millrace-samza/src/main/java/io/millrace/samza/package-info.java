/**
 * Runs Apache Samza 1.x low-level jobs on Millrace as they are: their task classes, compiled
 * against Samza's published {@code samza-api}, and their {@code .properties} files.
 *
 * <p>{@link io.millrace.samza.translate.SamzaJobTranslator} (a {@link io.millrace.spi.job.JobTranslator})
 * turns a Samza job's keys into Millrace's before validation and keeps the original keys under
 * {@code samza.}; the adapter tasks in {@link io.millrace.samza.task} create the user's Samza task
 * from them and translate each call. docs/samza.md says what runs, what is mapped to what, and
 * what is not supported.
 */
package io.millrace.samza;
