package io.millrace.core.commit;

import io.millrace.api.StreamPartition;
import io.millrace.api.checkpoint.CheckpointStore;
import io.millrace.api.checkpoint.CheckpointWriter;
import io.millrace.api.metrics.Counter;
import io.millrace.api.system.SystemProducer;
import io.millrace.core.loop.PartitionState;
import io.millrace.core.store.ContainerStores;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens on commit: DESIGN.md's commit protocol for one container (at-least-once).
 *
 * <ol>
 *   <li>the stores flush: object caches to engine write batches and changelog sends
 *       ({@link ContainerStores#flush});
 *   <li>every producer flushes and waits for its acknowledgements: outputs and changelogs are
 *       durable;
 *   <li>the stores sync their engines, and the changelog offsets they reached join the checkpoint
 *       ({@link ContainerStores#beforeCheckpoint});
 *   <li>the checkpoint is written: each input partition's last processed offset, then each
 *       store's changelog offset (under {@code job.coordinator=kafka} this is the commit of the
 *       container's transaction, which a member that lost its tasks cannot make);
 *   <li>each store's local files are marked with the changelog offset the checkpoint now holds
 *       ({@link ContainerStores#afterCheckpoint}), so a restart replays only what follows.
 * </ol>
 *
 * <p>A crash between any two steps re-delivers the input after the previous checkpoint: outputs
 * may repeat, nothing is lost. Which partition goes where in a checkpoint (its layout) changes
 * only when the container's partitions do ({@link #layout}), so a commit allocates nothing: the
 * Kafka checkpoint lesson, where thousands of partitions made each checkpoint a burst of garbage.
 *
 * <p>Loop thread only.
 */
public final class Committer {
  private static final Logger LOG = LoggerFactory.getLogger(Committer.class);
  /** A commit longer than this is logged with the time of each step. */
  private static final long SLOW_COMMIT_NANOS = TimeUnit.SECONDS.toNanos(1);
  private volatile long lastCommitEpochMillis;
  private final int containerId;
  private final List<SystemProducer> producers;
  private final ContainerStores stores;
  private final CheckpointStore checkpoints;
  private final Counter commits;
  private PartitionState[] inputs = new PartitionState[0];
  private CheckpointWriter writer;
  private long[] offsets = new long[0];

  /**
   * A committer.
   *
   * @param producers the container's producers (outputs and changelogs)
   * @param stores the container's stores, or null
   * @param checkpoints where checkpoints go
   * @param commits counts commits (a metric)
   */
  public Committer(int containerId, List<SystemProducer> producers, ContainerStores stores,
      CheckpointStore checkpoints, Counter commits) {
    this.containerId = containerId;
    this.producers = producers;
    this.stores = stores;
    this.checkpoints = checkpoints;
    this.commits = commits;
  }

  /**
   * The container's input partitions changed: from now on a checkpoint holds these (in this
   * order), then the stores' changelog partitions.
   */
  public void layout(PartitionState[] inputs) {
    List<StreamPartition> ids = new ArrayList<>();
    for (PartitionState p : inputs) {
      ids.add(p.id());
    }
    if (stores != null) {
      ids.addAll(stores.changelogPartitions()); // changelog offsets go in checkpoints too
    }
    this.inputs = inputs.clone();
    this.writer = checkpoints.writer(containerId, ids, producers);
    this.offsets = new long[ids.size()];
  }

  /**
   * Runs the commit protocol; throws if any step fails (nothing after it happened).
   *
   * @throws io.millrace.api.checkpoint.CommitFencedException if another member owns the tasks
   */
  public void commit() {
    if (writer == null) {
      return; // the container never held a partition: there is nothing to commit
    }
    long started = System.nanoTime();
    if (stores != null) {
      stores.flush();
    }
    long flushed = System.nanoTime();
    for (SystemProducer producer : producers) {
      producer.flush();
    }
    long acknowledged = System.nanoTime();
    for (int i = 0; i < inputs.length; i++) {
      offsets[i] = inputs[i].lastOffset();
    }
    if (stores != null) {
      stores.beforeCheckpoint(offsets, inputs.length);
    }
    long synced = System.nanoTime();
    writer.write(offsets);
    long written = System.nanoTime();
    if (stores != null) {
      stores.afterCheckpoint();
    }
    long ended = System.nanoTime();
    commits.inc();
    lastCommitEpochMillis = System.currentTimeMillis();
    if (ended - started > SLOW_COMMIT_NANOS) {
      // The loop stands still through a commit: say which step held it.
      LOG.warn("container {}: a commit took {} ms: stores flushed {} ms, outputs and changelogs "
              + "acknowledged {} ms, engines synced {} ms, checkpoint written {} ms, files "
              + "marked {} ms", containerId, ms(ended - started), ms(flushed - started),
          ms(acknowledged - flushed), ms(synced - acknowledged), ms(written - synced),
          ms(ended - written));
    }
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }

  /** When the last commit completed, in ms since the epoch; 0 before the first. Any thread. */
  public long lastCommitEpochMillis() {
    return lastCommitEpochMillis;
  }
}
