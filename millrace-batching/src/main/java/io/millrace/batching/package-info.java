/**
 * Micro-batching for asynchronous tasks: {@link io.millrace.batching.Batcher} groups the
 * requests a task makes to a remote service into batches, sending a batch when it is full, when
 * its oldest request has waited the linger time, or when the task flushes it because its
 * container loop has nothing else to do. Under load batches fill; when idle a request waits at
 * most the linger time. Each request completes with its own result.
 *
 * <p>The pieces: {@link io.millrace.batching.BatchCall} (the user's code that sends one batch),
 * {@link io.millrace.batching.BatchResults} (how that code completes each request),
 * {@link io.millrace.batching.Completion} (what a request's submitter is told) and
 * {@link io.millrace.batching.LingerScheduler} (the timer behind the linger time, replaceable in
 * tests).
 */
package io.millrace.batching;
