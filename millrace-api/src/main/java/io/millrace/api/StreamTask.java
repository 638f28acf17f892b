package io.millrace.api;

/**
 * The user's code for one task partition: called once per input message, in offset order within
 * each partition.
 *
 * <p>A synchronous task is called inline on its container's loop thread, so it must not block for
 * long: everything else on that thread waits. A task whose work is mostly waiting on a remote
 * service should be asynchronous instead.
 *
 * <p>One instance serves one task; instances are never shared between threads, so a task needs no
 * synchronisation for its own fields. Optional life-cycle hooks: {@link InitableTask},
 * {@link WindowableTask}, {@link EndOfStreamListener}, {@link ClosableTask}.
 */
@FunctionalInterface
public interface StreamTask {
  /**
   * Processes one message.
   *
   * @param envelope the message, with its stream, partition and offset
   * @param collector where to send output messages
   * @param coordinator to ask for a commit or a shutdown
   * @throws Exception anything the task throws is handled by {@code task.error.policy}
   */
  void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) throws Exception;
}
