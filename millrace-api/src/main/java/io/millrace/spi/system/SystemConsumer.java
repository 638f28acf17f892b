package io.millrace.spi.system;

/**
 * Reads partitions of a system for one container.
 *
 * <p>Threading contract: every method is called by the container's loop thread only. A consumer
 * that fetches on its own thread hands batches to {@link #poll} through a bounded queue.
 *
 * <p>Life cycle: {@link #register} for each partition, {@link #start}, then any number of
 * {@link #poll}, {@link #pause} and {@link #resume}, then {@link #stop}. When the container's tasks
 * change while it runs (a job shared among processes), partitions are also {@link #register
 * registered} after {@link #start} and {@link #unregister unregistered}; an index given up by
 * {@link #unregister} may be given to another partition later.
 */
public interface SystemConsumer {
  /**
   * Adds a partition to read.
   *
   * @param index the dense index the runtime gave the partition; {@link BatchSink} calls use it
   * @param stream the stream
   * @param partition the partition number
   * @param start where to start
   */
  void register(int index, StreamSpec stream, int partition, StartPosition start);

  /**
   * Stops reading a partition. From the moment this returns, {@link #poll} hands nothing more over
   * for {@code index} from this registration: not what was fetched before, not an end of stream.
   * If the index is registered again (for this or another partition), what follows is the new
   * registration's. Default: not supported (a job whose tasks move needs it).
   *
   * @param index the index given to {@link #register}
   */
  default void unregister(int index) {
    throw new UnsupportedOperationException(getClass().getName()
        + " cannot stop reading a partition while it runs");
  }

  /** Starts reading (opens files, starts fetch threads). */
  void start();

  /**
   * Hands over what is available for the given partitions, as batches to {@code sink}. The loop
   * asks only for partitions whose buffers are empty (and not paused or ended). A consumer should
   * hand over all it has for a partition up to {@code maxMessages}, in one call to the sink.
   *
   * @param indices the partitions wanted, as indices given to {@link #register}
   * @param count how many entries of {@code indices} are valid
   * @param maxMessages the most messages to hand over per partition
   * @param sink where to put them
   * @param timeoutMillis how long to wait if nothing is available (0: don't wait)
   * @return the number of messages handed over
   */
  int poll(int[] indices, int count, int maxMessages, BatchSink sink, long timeoutMillis)
      throws InterruptedException;

  /** Stops fetching a partition whose buffer is full (fetch-thread consumers). Default: no-op. */
  default void pause(int index) {}

  /** Resumes fetching a partition paused with {@link #pause}. Default: no-op. */
  default void resume(int index) {}

  /** Stops reading and releases resources. */
  void stop();
}
