package io.millrace.batching;

/**
 * Completes the requests of one batch, by their index in the list handed to
 * {@link BatchCall#call}. Thread-safe: any thread may complete any request, and different
 * requests may be completed by different threads. Each request completes once; its
 * {@link Completion} runs on the thread that completes it, inside the call.
 *
 * @param <R> the type of a request's result
 */
public interface BatchResults<R> {
  /** How many requests the batch holds; their indices are {@code 0} to {@code size() - 1}. */
  int size();

  /**
   * The request at {@code index} succeeded.
   *
   * @param index the request's index in the batch
   * @param value its result (may be {@code null})
   * @throws IllegalStateException if that request was already completed or failed
   * @throws IndexOutOfBoundsException if there is no such request
   */
  void complete(int index, R value);

  /**
   * The request at {@code index} failed.
   *
   * @param index the request's index in the batch
   * @param error why it failed
   * @throws IllegalStateException if that request was already completed or failed
   * @throws IndexOutOfBoundsException if there is no such request
   * @throws NullPointerException if {@code error} is {@code null}
   */
  void fail(int index, Throwable error);

  /**
   * Fails every request of the batch that is not completed yet, e.g. because the whole remote
   * call failed. Requests already completed keep their result; calling it when every request is
   * done does nothing, so error paths may call it without knowing how far they got.
   *
   * @param error why they failed
   * @throws NullPointerException if {@code error} is {@code null}
   */
  void failAll(Throwable error);
}
