package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.metrics.SingleWriterCounter;
import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.system.memory.MemorySystemFactory;
import io.millrace.core.testing.TestSystemContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Where a restore stops: at the changelog's head, and never short of the checkpoint. */
class ChangelogRestorerTest {
  private final String changelog = "restorer-" + UUID.randomUUID();
  private final MemoryStream log = MemoryStreams.create(changelog, 1);
  private final MemoryEngine engine = new MemoryEngine();
  private final StoreSpec spec = new StoreSpec("counts", new MemoryEngine.Factory(),
      new StringSerde(), new LongSerde(), "memory", changelog, 10, 10, Map.of());

  @AfterEach
  void drop() {
    MemoryStreams.drop(changelog);
  }

  @Test
  void aHeadShortOfTheCheckpointIsAskedAgainUntilItHoldsTheCheckpointedRecord() {
    write(3);
    // As under transactions: the last commit is readable in the checkpoint before its marker
    // moves the changelog's last stable offset; the first two answers are from before it.
    LaggingAdmin admin = new LaggingAdmin(2, 1);

    long applied = restorer(admin, 10_000).restore(List.of(instance()), new long[] {2});

    assertThat(applied).isEqualTo(3);
    assertThat(engine.get(bytes("k2"))).as("the checkpointed record").isNotNull();
    assertThat(admin.asked.get()).isGreaterThanOrEqualTo(3);
  }

  @Test
  void aHeadThatNeverReachesTheCheckpointIsAnErrorNamingTheStoreAndTheOffsets() {
    write(3);
    LaggingAdmin admin = new LaggingAdmin(Integer.MAX_VALUE, 1);

    assertThatThrownBy(() -> restorer(admin, 50).restore(List.of(instance()), new long[] {7}))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("store counts")
        .hasMessageContaining(changelog).hasMessageContaining("offset 7")
        .hasMessageContaining("head stayed at 1");
  }

  @Test
  void withoutACheckpointTheRestoreStopsAtTheHeadItWasGiven() {
    write(3);
    LaggingAdmin admin = new LaggingAdmin(Integer.MAX_VALUE, 2);

    long applied = restorer(admin, 50).restore(List.of(instance()),
        new long[] {CheckpointStore.NONE});

    assertThat(applied).isEqualTo(2);
    assertThat(engine.get(bytes("k2"))).as("past the head").isNull();
  }

  @Test
  void eachInstanceIsReportedRestoredOnceItsOwnRecordsAreAppliedBeforeTheOthersEnd() {
    String twoPartitions = "restorer-two-" + UUID.randomUUID();
    MemoryStream two = MemoryStreams.create(twoPartitions, 2);
    try {
      StoreSpec spec2 = new StoreSpec("counts", new MemoryEngine.Factory(), new StringSerde(),
          new LongSerde(), "memory", twoPartitions, 10, 10, Map.of());
      for (int i = 0; i < 3; i++) {
        two.append(0, bytes("small" + i), new LongSerde().toBytes((long) i));
      }
      int big = 50_000; // several polls' worth
      for (int i = 0; i < big; i++) {
        two.append(1, bytes("big" + i), new LongSerde().toBytes((long) i));
      }
      MemoryEngine small = new MemoryEngine();
      MemoryEngine large = new MemoryEngine();
      List<StoreInstance> instances = List.of(
          new StoreInstance(spec2, 0, new CachedStore<>("counts of Partition 0", spec2, small,
              null), null, null, -1),
          new StoreInstance(spec2, 1, new CachedStore<>("counts of Partition 1", spec2, large,
              null), null, null, -1));
      List<String> heard = new java.util.ArrayList<>();
      ChangelogRestorer restorer = new ChangelogRestorer("memory", reader(
          new MemorySystemFactory().consumer(context())), new MemorySystemFactory().admin(context()),
          new SingleWriterCounter(), new SingleWriterCounter(), 1, 1_000);

      long applied = restorer.restore(instances, new long[] {CheckpointStore.NONE,
          CheckpointStore.NONE}, () -> false, instance -> heard.add(instance.taskNumber()
          + (instance.taskNumber() == 0 ? " small=" + (small.get(bytes("small2")) != null)
          + " bigDone=" + (large.get(bytes("big" + (big - 1))) != null)
          : " bigDone=" + (large.get(bytes("big" + (big - 1))) != null))));

      assertThat(applied).isEqualTo(big + 3);
      assertThat(heard).containsExactly("0 small=true bigDone=false", "1 bigDone=true");
    } finally {
      MemoryStreams.drop(twoPartitions);
    }
  }

  @Test
  void aCopyHoldingTheChangelogToItsHeadPastTheCheckpointReplaysNothing() {
    write(3);
    // A standby copy's takeover: its files hold offsets 0-2, the last checkpoint only 0-1.
    List<Integer> heard = new java.util.ArrayList<>();

    long applied = restorer(realAdmin(), 50).restore(List.of(instance(2)), new long[] {1},
        () -> false, instance -> heard.add(instance.taskNumber()));

    assertThat(applied).isZero();
    assertThat(engine.get(bytes("k2"))).as("read again from the changelog").isNull();
    assertThat(heard).as("reported restored").containsExactly(0);
  }

  @Test
  void filesAheadOfTheCheckpointReplayOnlyWhatFollowsTheirMark() {
    write(5);

    long applied = restorer(realAdmin(), 50).restore(List.of(instance(2)), new long[] {1});

    assertThat(applied).isEqualTo(2);
    assertThat(engine.get(bytes("k2"))).isNull();
    assertThat(engine.get(bytes("k4"))).isNotNull();
  }

  @Test
  void filesOlderThanTheCheckpointReplayFromTheirMark() {
    write(3);

    long applied = restorer(realAdmin(), 50).restore(List.of(instance(0)), new long[] {2});

    assertThat(applied).isEqualTo(2);
    assertThat(engine.get(bytes("k1"))).isNotNull();
  }

  @Test
  void filesClaimingMoreThanTheChangelogHoldsReplayFromTheCheckpoint() {
    write(3);

    long applied = restorer(realAdmin(), 50).restore(List.of(instance(10)), new long[] {0});

    assertThat(applied).isEqualTo(2);
    assertThat(engine.get(bytes("k1"))).isNotNull();
  }

  @Test
  void oneConsumerServesRestoreAfterRestoreEachReadingOnlyItsOwnPartitions() {
    String twoPartitions = "restorer-kept-" + UUID.randomUUID();
    MemoryStream two = MemoryStreams.create(twoPartitions, 2);
    try {
      StoreSpec spec2 = new StoreSpec("counts", new MemoryEngine.Factory(), new StringSerde(),
          new LongSerde(), "memory", twoPartitions, 10, 10, Map.of());
      for (int i = 0; i < 5; i++) {
        two.append(0, bytes("zero" + i), new LongSerde().toBytes((long) i));
        two.append(1, bytes("one" + i), new LongSerde().toBytes((long) i));
      }
      AtomicInteger made = new AtomicInteger();
      ChangelogReader reader = new ChangelogReader("memory", () -> {
        made.incrementAndGet();
        return new MemorySystemFactory().consumer(context());
      });
      ChangelogRestorer restorer = new ChangelogRestorer("memory", reader,
          new MemorySystemFactory().admin(context()), new SingleWriterCounter(),
          new SingleWriterCounter(), 1, 1_000);
      MemoryEngine first = new MemoryEngine();
      MemoryEngine second = new MemoryEngine();

      long a = restorer.restore(List.of(new StoreInstance(spec2, 0, new CachedStore<>(
          "counts of Partition 0", spec2, first, null), null, null, -1)),
          new long[] {CheckpointStore.NONE});
      two.append(0, bytes("zero-late"), new LongSerde().toBytes(9L)); // not the next restore's
      long b = restorer.restore(List.of(new StoreInstance(spec2, 1, new CachedStore<>(
          "counts of Partition 1", spec2, second, null), null, null, 1)),
          new long[] {CheckpointStore.NONE});
      reader.close();

      assertThat(a).isEqualTo(5);
      assertThat(b).as("after its mark at 1").isEqualTo(3);
      assertThat(second.get(bytes("one4"))).isNotNull();
      assertThat(second.get(bytes("one1"))).isNull();
      assertThat(second.get(bytes("zero-late"))).as("the first restore's partition").isNull();
      assertThat(second.get(bytes("zero0"))).isNull();
      assertThat(made.get()).as("consumers made").isEqualTo(1);
    } finally {
      MemoryStreams.drop(twoPartitions);
    }
  }

  @Test
  void aRestoreThatFailedLeavesTheNextAFreshConsumer() {
    log.append(0, "not bytes", new LongSerde().toBytes(1L)); // unreadable: the restore fails
    AtomicInteger made = new AtomicInteger();
    ChangelogReader reader = new ChangelogReader("memory", () -> {
      made.incrementAndGet();
      return new MemorySystemFactory().consumer(context());
    });
    ChangelogRestorer restorer = new ChangelogRestorer("memory", reader, realAdmin(), new SingleWriterCounter(), new SingleWriterCounter(), 1, 1_000);

    assertThatThrownBy(() -> restorer.restore(List.of(instance()),
        new long[] {CheckpointStore.NONE})).hasMessageContaining("cannot be read");
    write(2); // offsets 1-2
    long applied = restorer.restore(List.of(instance(0)), new long[] {CheckpointStore.NONE});
    reader.close();

    assertThat(applied).isEqualTo(2);
    assertThat(made.get()).isEqualTo(2);
  }

  private void write(int records) {
    for (int i = 0; i < records; i++) {
      log.append(0, bytes("k" + i), new LongSerde().toBytes((long) i));
    }
  }

  private StoreInstance instance() {
    return instance(-1);
  }

  /** The instance, its local files marked with {@code localOffset} (-1: none). */
  private StoreInstance instance(long localOffset) {
    return new StoreInstance(spec, 0, new CachedStore<>("counts of Partition 0", spec, engine,
        null), null, null, localOffset);
  }

  private static SystemAdmin realAdmin() {
    return new MemorySystemFactory().admin(context());
  }

  private ChangelogRestorer restorer(SystemAdmin admin, long headWaitMillis) {
    return new ChangelogRestorer("memory", reader(new MemorySystemFactory().consumer(context())),
        admin,
        new SingleWriterCounter(), new SingleWriterCounter(), 1, headWaitMillis);
  }

  private static ChangelogReader reader(SystemConsumer consumer) {
    return new ChangelogReader("memory", () -> consumer);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The memory changelog's real head, except that the first answers stop at {@code head}. */
  private final class LaggingAdmin implements SystemAdmin {
    final AtomicInteger asked = new AtomicInteger();
    private final int lagging;
    private final long head;

    LaggingAdmin(int lagging, long head) {
      this.lagging = lagging;
      this.head = head;
    }

    @Override
    public int partitionCount(StreamSpec stream) {
      return 1;
    }

    @Override
    public StreamMetadata metadata(StreamSpec stream, int partition) {
      long upcoming = asked.getAndIncrement() < lagging ? head : log.size(partition);
      return new StreamMetadata(0, upcoming - 1, upcoming, false);
    }

    @Override
    public int ensureOutput(StreamSpec stream, int partitions) {
      return 1;
    }
  }

  private static SystemContext context() {
    return new TestSystemContext("memory", "restorer-test", 0, Map.of(), Map.of(),
        new DefaultMetricsRegistry(false));
  }
}
