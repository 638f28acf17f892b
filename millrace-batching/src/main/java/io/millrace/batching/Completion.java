package io.millrace.batching;

/**
 * Told once when a request submitted to a {@link Batcher} is done: either with its result or with
 * the error that failed it.
 *
 * <p>It runs on the thread that completed the request: usually the thread on which the remote
 * service's client delivers its response, or the thread that sent the batch if the
 * {@link BatchCall} threw. So it should be short and must not block; completing an async task's
 * {@link io.millrace.api.TaskCallback} is the typical body. Anything it throws is handed to that
 * thread's {@link Thread.UncaughtExceptionHandler} and never stops the other requests of the
 * batch from completing.
 *
 * @param <R> the type of a request's result
 */
@FunctionalInterface
public interface Completion<R> {
  /**
   * The request is done.
   *
   * @param result the request's result, or {@code null} if it failed (a successful result may be
   *     {@code null} too, if the {@link BatchCall} completed it so)
   * @param error {@code null} if the request succeeded, otherwise why it failed
   */
  void done(R result, Throwable error);
}
