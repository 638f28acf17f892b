package io.millrace.api;

/**
 * A task whose work on a message finishes later, typically when a remote call returns: it starts
 * the work in {@link #processAsync} and returns at once; the message counts as done when its
 * {@link TaskCallback} completes, from any thread.
 *
 * <p>How many messages may be in flight per task is {@code task.max.concurrency}; which may
 * overlap is {@code task.ordering}: {@code partition} (with concurrency 1, strict order),
 * {@code key} (messages with the same key never overlap and complete in offset order) or
 * {@code none}. Commits never wait for messages in flight: a partition's committed offset is the
 * highest one below which every message has completed.
 *
 * <p>{@code processAsync} is called on the container's loop thread. Output sent through the
 * collector it is given is held with the message and reaches the output stream when the callback
 * completes, so output is always attributed to its message, whichever thread sent it.
 */
@FunctionalInterface
public interface AsyncStreamTask {
  /**
   * Starts processing one message. Must not block: the loop thread serves every task of the
   * container.
   *
   * @param envelope the message
   * @param collector where to send output for this message; usable from any thread until the
   *     callback completes
   * @param coordinator to ask for a commit or a shutdown (loop thread only, i.e. inside this call)
   * @param callback complete or fail it exactly once, from any thread
   * @throws Exception anything thrown counts as {@code callback.fail}
   */
  void processAsync(
      Envelope envelope, Collector collector, TaskCoordinator coordinator, TaskCallback callback)
      throws Exception;
}
