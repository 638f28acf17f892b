package io.millrace.api.system;

/**
 * Answers questions about streams on one system. Called from the thread that starts the job and
 * from a container thread at a commit or a bootstrap check; implementations must be thread-safe.
 */
public interface SystemAdmin extends AutoCloseable {
  /**
   * The number of partitions of a stream.
   *
   * @throws IllegalArgumentException naming the stream if it does not exist
   */
  int partitionCount(StreamSpec stream);

  /** The oldest, newest and upcoming offsets of one partition now. */
  StreamMetadata metadata(StreamSpec stream, int partition);

  /**
   * Makes sure an output stream exists with at least {@code partitions} partitions, creating it
   * if the system can, and returns its partition count.
   *
   * @param partitions the partition count wanted if the stream is created
   */
  int ensureOutput(StreamSpec stream, int partitions);

  /**
   * Makes sure a store's changelog stream exists with {@code partitions} partitions (one per
   * task), creating it compacted where the system knows compaction, and returns its partition
   * count. Default: as {@link #ensureOutput}.
   */
  default int ensureChangelog(StreamSpec stream, int partitions) {
    return ensureOutput(stream, partitions);
  }

  @Override
  default void close() {}
}
