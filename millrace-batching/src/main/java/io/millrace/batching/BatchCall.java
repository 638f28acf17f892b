package io.millrace.batching;

import java.util.List;

/**
 * Sends one batch of requests to a remote service: the user's side of a {@link Batcher}.
 *
 * <p>{@link #call} starts the remote call and returns at once; later, from any thread, the
 * implementation completes each request by its index in the list, through
 * {@link BatchResults#complete}, {@link BatchResults#fail} or {@link BatchResults#failAll}. Every
 * request must be completed exactly once, or its submitter waits for ever (an async task's
 * message then fails by {@code task.callback.timeout.ms}).
 *
 * <p>{@code call} runs on the thread that caused the batch to leave: a submitting thread (the
 * batch became full), a thread that called {@link Batcher#flush()} or {@link Batcher#close()}
 * (typically a container's loop thread), the scheduler's thread (the linger time passed), or, with
 * {@link Batcher.Builder#maxInFlight}, the thread that completed the last request of a batch in
 * flight (a slot became free). It
 * must therefore not block, and it may run on several threads at once for different batches; the
 * batches may reach it in a different order than they were filled.
 *
 * <pre>{@code
 * BatchCall<String, Profile> call = (ids, results) ->
 *     client.getAll(ids).whenComplete((profiles, error) -> {
 *       if (error != null) {
 *         results.failAll(error);
 *       } else {
 *         for (int i = 0; i < ids.size(); i++) {
 *           results.complete(i, profiles.get(i));
 *         }
 *       }
 *     });
 * }</pre>
 *
 * @param <Q> the type of a request
 * @param <R> the type of a request's result
 */
@FunctionalInterface
public interface BatchCall<Q, R> {
  /**
   * Starts sending one batch.
   *
   * @param requests the batch's requests, in the order they were submitted; not empty and
   *     unmodifiable, and the implementation may keep it
   * @param results where to complete each request, by its index in {@code requests}; usable from
   *     any thread
   * @throws Exception anything thrown fails every request of the batch not completed yet with
   *     that exception
   */
  void call(List<Q> requests, BatchResults<R> results) throws Exception;
}
