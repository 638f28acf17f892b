package io.millrace.spi.system;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

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

  /**
   * The oldest, newest and upcoming offsets of one partition now: never an earlier answer kept,
   * since a restore or a bootstrap read up to the head this returns, and a head from before the
   * last owner's final commit would leave its last writes out.
   */
  StreamMetadata metadata(StreamSpec stream, int partition);

  /**
   * The metadata of several partitions of one stream now, by partition; a system that can asks
   * for them all in one round trip (a container taking many partitions at once). Default: one
   * {@link #metadata(StreamSpec, int)} each.
   */
  default Map<Integer, StreamMetadata> metadata(StreamSpec stream, Collection<Integer> partitions) {
    Map<Integer, StreamMetadata> all = new HashMap<>();
    for (int p : partitions) {
      all.put(p, metadata(stream, p));
    }
    return all;
  }

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
