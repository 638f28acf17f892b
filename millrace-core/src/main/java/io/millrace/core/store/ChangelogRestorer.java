package io.millrace.core.store;
import io.millrace.api.Envelope;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.api.metrics.Counter;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores a container's stores from the changelogs on one system: the process's reader of the
 * system ({@link ChangelogReader}, whose one consumer the standby copies and other restores share)
 * reads every changelog partition of the restore at once (on Kafka, fetched in parallel), ahead
 * of the copies', up to the head each had when the restore began, applying each batch to its
 * store's engine as one write. With more than one
 * thread, the writes of different store instances run in parallel ({@link RestoreLanes}), each
 * instance's in order; with one, on the calling thread.
 *
 * <p>Where each partition starts: a persistent store whose local files say which changelog offset
 * they hold (and were not wiped) replays only what follows it ({@link #replayAfter}), so a
 * restart after a clean stop replays the tail written since the last commit, and a standby
 * copy's takeover only what its copy had not read yet, not the whole changelog; any other store
 * starts empty and replays it all.
 */
public final class ChangelogRestorer {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelogRestorer.class);
  private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(5);
  /** How long a changelog's head may lag its checkpoint (a commit's markers being written). */
  private static final long HEAD_WAIT_MILLIS = 30_000;
  private final String system;
  /** The process's reader of the system, shared with other restores and the standby copies. */
  private final ChangelogReader reader;
  private final SystemAdmin admin;
  private final Counter restoredRecords;
  private final Counter restoreMillis;
  private final int threads;
  private final long headWaitMillis;
  /**
   * A restorer.
   *
   * @param system the changelogs' system, for messages
   * @param reader the process's reader of that system (its consumer stays started between
   *     restores: a restore starts fetching at once instead of after a fresh Kafka client found
   *     its broker and metadata, half a second of a takeover's replay of a few thousand records)
   * @param admin the system's admin, for the heads
   * @param restored counts the records applied (a metric)
   * @param restoreMillis counts the milliseconds spent restoring (a metric)
   * @param threads the most threads that apply restored records at once (1: the calling thread)
   */
  public ChangelogRestorer(String system, ChangelogReader reader, SystemAdmin admin,
      Counter restored, Counter restoreMillis, int threads) {
    this(system, reader, admin, restored, restoreMillis, threads, HEAD_WAIT_MILLIS);
  }

  ChangelogRestorer(String system, ChangelogReader reader, SystemAdmin admin,
      Counter restored, Counter restoreMillis, int threads, long headWaitMillis) {
    this.headWaitMillis = headWaitMillis;
    this.system = system;
    this.reader = reader;
    this.admin = admin;
    this.restoredRecords = restored;
    this.restoreMillis = restoreMillis;
    this.threads = threads;
  }

  /**
   * Restores store instances whose changelogs are on this restorer's system.
   *
   * @param instances the instances
   * @param checkpointedOffsets each one's changelog offset in the checkpoint, or
   *     {@link CheckpointStore#NONE}
   * @return the records applied
   */
  long restore(List<StoreInstance> instances, long[] checkpointedOffsets) {
    return restore(instances, checkpointedOffsets, () -> false, instance -> { });
  }

  /**
   * Restores store instances, and stops early (what was applied stays: the files' mark still
   * says where a later restore starts) once {@code cancelled} says so. {@code restored} hears of
   * each instance as soon as all of its records are applied (on the restoring thread or a
   * lane's), so its task can start before the others are done.
   */
  synchronized long restore(List<StoreInstance> instances, long[] checkpointedOffsets,
      BooleanSupplier cancelled, Consumer<StoreInstance> restored) {
    int n = instances.size();
    StoreInstance[] instance = new StoreInstance[n];
    long[] target = new long[n];
    boolean[] done = new boolean[n];
    StartPosition[] starts = new StartPosition[n];
    int remaining = 0;
    long full = 0;
    Map<String, Map<Integer, StreamMetadata>> heads = heads(instances, checkpointedOffsets);
    StringBuilder plan = new StringBuilder();
    for (int i = 0; i < n; i++) {
      instance[i] = instances.get(i);
      StoreInstance s = instance[i];
      StreamMetadata head = heads.get(s.spec().name()).get(s.changelogNumber());
      target[i] = head.upcoming();
      long checkpointed = checkpointedOffsets[i];
      StartPosition start;
      if (s.localOffset() >= 0) {
        long from = replayAfter(s.localOffset(), checkpointed, target[i]);
        start = StartPosition.after(from);
        done[i] = from + 1 >= target[i];
      } else {
        start = StartPosition.oldest();
        done[i] = head.isEmpty();
        full++;
      }
      starts[i] = start;
      plan.append(' ').append(s.spec().name()).append('/').append(s.taskNumber()).append(": ")
          .append(start.kind() == StartPosition.Kind.AFTER ? "after " + start.offset()
              : "from the start").append(" to ").append(target[i])
          .append(" (local ").append(s.localOffset()).append(", checkpoint ")
          .append(checkpointed).append(')');
      if (!done[i]) {
        remaining++;
      }
    }
    for (int i = 0; i < n; i++) {
      if (done[i]) {
        restored.accept(instance[i]); // nothing to replay
      }
    }
    if (remaining == 0) {
      return 0;
    }
    int laneCount = Math.min(threads, remaining);
    LOG.info("restoring {} store partition(s) from changelogs on system '{}' ({} in full, the "
        + "rest from their local files) on {} thread(s):{}", remaining, system, full, laneCount,
        plan);
    long started = System.nanoTime();
    RestoreLanes lanes = laneCount > 1 ? new RestoreLanes(laneCount, "millrace-restore-" + system)
        : null;
    int[] lane = new int[n];
    for (int i = 0, next = 0; i < n; i++) {
      if (!done[i] && lanes != null) {
        lane[i] = next++ % laneCount;
      }
    }
    Applier applier = new Applier(instance, target, done, lanes, lane, restored);
    int[] readerIndex = new int[n];
    Arrays.fill(readerIndex, -1);
    try {
      for (int i = 0; i < n; i++) {
        if (!done[i]) { // one with nothing to replay is not read at all
          readerIndex[i] = reader.register(instance[i].spec().changelogSpec(),
              instance[i].changelogNumber(), starts[i], applier.of(i), false);
        }
      }
      int[] pending = new int[n];
      long nextReport = started + PROGRESS_NANOS;
      while (applier.remaining() > 0) {
        if (cancelled.getAsBoolean()) {
          LOG.info("restore from system '{}' cancelled after {} records: its task left",
              system, applier.applied);
          break;
        }
        int count = 0;
        for (int i = 0; i < n; i++) {
          if (!done[i]) {
            pending[count++] = readerIndex[i];
          }
        }
        reader.poll(pending, count, 10_000, 100);
        long now = System.nanoTime();
        if (now >= nextReport) {
          LOG.info("restoring from system '{}': {} records applied, {} partition(s) to go",
              system, applier.applied, applier.remaining());
          nextReport = now + PROGRESS_NANOS;
        }
      }
      if (lanes != null) {
        lanes.finish();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while restoring stores", e);
    } finally {
      if (lanes != null) {
        lanes.close();
      }
      for (int index : readerIndex) {
        if (index >= 0) {
          reader.unregister(index); // the reader's consumer stays, for the next restore
        }
      }
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    synchronized (restoreMillis) {
      restoreMillis.inc(millis);
    }
    LOG.info("restored {} store partition(s) from system '{}': {} records in {} ms", n, system,
        applier.applied, millis);
    return applier.applied;
  }

  /**
   * The changelog offset a store with local files replays after: their mark, since they hold
   * the changelog up to it (committed records only), whether that is before the checkpoint (files
   * older than the last owner's commits) or past it (a standby copy follows the changelog past the
   * last checkpoint it saw, often to its head: starting at the checkpoint would read records its
   * files hold). Only files that claim records the changelog's head does not reach replay after
   * the checkpoint instead: they cannot be this changelog's, and the checkpoint, which the head
   * was checked against, is trusted.
   */
  static long replayAfter(long local, long checkpointed, long head) {
    return checkpointed != CheckpointStore.NONE && local >= head ? checkpointed : local;
  }

  /**
   * The head of every changelog partition to restore, asked now (one request per changelog): the
   * restore reads up to it, so it must hold the previous owner's last commit. Under transactions
   * the head is the last stable offset, which moves only once the commit's markers are written,
   * a moment after the commit returned (and after the checkpoint became readable): a head short
   * of a checkpointed offset is asked again until it passes it.
   */
  private Map<String, Map<Integer, StreamMetadata>> heads(List<StoreInstance> instances,
      long[] checkpointedOffsets) {
    Map<String, StreamSpec> changelogs = new LinkedHashMap<>();
    Map<String, List<Integer>> partitions = new HashMap<>();
    for (StoreInstance s : instances) {
      changelogs.putIfAbsent(s.spec().name(), s.spec().changelogSpec());
      partitions.computeIfAbsent(s.spec().name(), k -> new ArrayList<>()).add(s.changelogNumber());
    }
    Map<String, Map<Integer, StreamMetadata>> heads = new HashMap<>();
    changelogs.forEach((store, changelog) -> heads.put(store, admin.metadata(changelog,
        partitions.get(store))));
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(headWaitMillis);
    long pauseMillis = 5; // a commit marker is written within milliseconds of the commit
    for (int i = 0; i < instances.size(); i++) {
      StoreInstance s = instances.get(i);
      String store = s.spec().name();
      long upcoming = heads.get(store).get(s.changelogNumber()).upcoming();
      while (checkpointedOffsets[i] != CheckpointStore.NONE
          && upcoming <= checkpointedOffsets[i]) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("store " + store + " of task " + s.taskNumber()
              + ": the checkpoint says its changelog " + s.spec().changelogStream()
              + " partition " + s.changelogNumber() + " holds offset " + checkpointedOffsets[i]
              + ", but the partition's head stayed at " + upcoming + " for " + headWaitMillis
              + " ms (was the changelog deleted or recreated since?)");
        }
        try {
          Thread.sleep(pauseMillis);
          pauseMillis = Math.min(200, pauseMillis * 2); // a head that never comes: fewer asks
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while restoring stores", e);
        }
        heads.put(store, admin.metadata(changelogs.get(store), partitions.get(store)));
        upcoming = heads.get(store).get(s.changelogNumber()).upcoming();
      }
    }
    return heads;
  }

  /**
   * Adds a batch of changelog records, up to (not including) offset {@code before}, to {@code
   * keys} and {@code values}: what a restore or a standby copy writes to its engine as one write.
   *
   * @throws IllegalStateException naming the store and the record, if a record cannot be read
   */
  static void collect(String store, Envelope[] messages, int from, int count, long before,
      List<byte[]> keys, List<byte[]> values) {
    for (int i = from; i < from + count; i++) {
      Envelope e = messages[i];
      if (e.offset() >= before) {
        break;
      }
      if (e.readError() != null || !(e.key() instanceof byte[])) {
        throw new IllegalStateException("store " + store + ": changelog record at " + e
            + " cannot be read: " + e.readError());
      }
      keys.add((byte[]) e.key());
      values.add((byte[]) e.value());
    }
  }

  /**
   * Applies what the consumer hands over, one engine write per batch: here, or queued on the
   * instance's lane. {@code applied} counts records handed to an engine (a lane's are applied by
   * the time the restore returns).
   */
  private final class Applier implements BatchSink {
    private final StoreInstance[] instance;
    private final long[] target;
    private final boolean[] done;
    private final RestoreLanes lanes;
    private final int[] lane;
    private final Consumer<StoreInstance> restored;
    // Reused when applying here; a lane gets fresh lists, as it applies them later.
    private List<byte[]> keys = new ArrayList<>();
    private List<byte[]> values = new ArrayList<>();
    long applied;

    Applier(StoreInstance[] instance, long[] target, boolean[] done, RestoreLanes lanes,
        int[] lane, Consumer<StoreInstance> restored) {
      this.restored = restored;
      this.instance = instance;
      this.target = target;
      this.done = done;
      this.lanes = lanes;
      this.lane = lane;
    }

    /** A sink for instance {@code i}'s partition, whatever index the reader gave it. */
    BatchSink of(int i) {
      return new BatchSink() {
        @Override
        public void accept(int index, Envelope[] messages, int from, int count) {
          Applier.this.accept(i, messages, from, count);
        }

        @Override
        public void endOfStream(int index) {
          Applier.this.endOfStream(i);
        }

        @Override
        public void head(int index, long upcomingOffset) {}

        @Override
        public void position(int index, long nextOffset) {
          Applier.this.position(i, nextOffset);
        }
      };
    }

    int remaining() {
      int r = 0;
      for (boolean d : done) {
        r += d ? 0 : 1;
      }
      return r;
    }

    @Override
    public void accept(int index, Envelope[] messages, int from, int count) {
      if (done[index]) {
        return; // past the head as of the restore's start: not ours to apply
      }
      if (lanes != null) {
        keys = new ArrayList<>(count);
        values = new ArrayList<>(count);
      } else {
        keys.clear();
        values.clear();
      }
      collect(instance[index].spec().name(), messages, from, count, target[index], keys, values);
      if (!keys.isEmpty()) {
        StorageEngine engine = instance[index].engine();
        if (lanes == null) {
          engine.write(keys, values);
        } else {
          try {
            lanes.apply(lane[index], engine, keys, values);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restoring stores", e);
          }
        }
        applied += keys.size();
        // Restores on different systems run at once and share the container's counter.
        synchronized (restoredRecords) {
          restoredRecords.inc(keys.size());
        }
      }
      if (count > 0 && messages[from + count - 1].offset() + 1 >= target[index]) {
        finished(index); // handed the head as of the restore's start, or past it
      }
    }

    /** The instance has every record it is to get: it is restored once they are applied. */
    private void finished(int index) {
      if (done[index]) {
        return;
      }
      done[index] = true;
      if (lanes == null) {
        restored.accept(instance[index]);
      } else {
        try {
          lanes.then(lane[index], () -> restored.accept(instance[index]));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while restoring stores", e);
        }
      }
    }

    @Override
    public void endOfStream(int index) {
      finished(index);
    }

    @Override
    public void head(int index, long upcomingOffset) {}

    @Override
    public void position(int index, long nextOffset) {
      if (nextOffset >= target[index]) {
        finished(index); // the last offsets held no record (compaction)
      }
    }
  }
}
