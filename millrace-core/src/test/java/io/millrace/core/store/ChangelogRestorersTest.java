package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.store.KeyValueStore;
import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
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
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task whose stores' changelogs sit on two systems: the systems restore one after the other on
 * the calling thread (the one that owns the process's readers), the task is reported restored
 * once, after both, and a failure on the first system is the restore's, the second not read.
 */
class ChangelogRestorersTest {
  private final String alphaLog = "alpha-" + UUID.randomUUID();
  private final String betaLog = "beta-" + UUID.randomUUID();
  private final MemoryStream alpha = MemoryStreams.create(alphaLog, 1);
  private final MemoryStream beta = MemoryStreams.create(betaLog, 1);
  private final StoreSpec alphaStore = spec("a", "alpha", alphaLog);
  private final StoreSpec betaStore = spec("b", "beta", betaLog);
  /** The systems whose changelog heads were asked for, in order, and by which thread. */
  private final List<String> asked = new CopyOnWriteArrayList<>();
  @TempDir Path dir;

  @AfterEach
  void drop() {
    MemoryStreams.drop(alphaLog);
    MemoryStreams.drop(betaLog);
  }

  @Test
  void changelogsOnTwoSystemsRestoreAtOnceAndTheTaskIsReportedOnceBothAreIn() {
    write(alpha, "a", 3);
    write(beta, "b", 50_000); // several polls
    StoreRegistry stores = stores(false);
    DetachedStores task = stores.openDetached(0, "Partition 0", Map.of());
    List<String> reported = new CopyOnWriteArrayList<>();

    long applied = stores.restoreDetached(List.of(task), () -> false,
        n -> reported.add(n + ": b" + (store(task, "b").get("b49999") != null)));

    assertThat(applied).isEqualTo(50_003);
    assertThat(reported).containsExactly("0: btrue");
    String me = Thread.currentThread().getName();
    assertThat(asked).containsExactly("alpha on " + me, "beta on " + me);
    assertThat(store(task, "a").get("a2")).isEqualTo(2L);
    stores.closeDetached(task);
  }

  @Test
  void aFailureOnTheFirstSystemIsTheRestoresFailureAndTheSecondIsNotRead() {
    write(alpha, "a", 3);
    write(beta, "b", 50_000);
    StoreRegistry stores = stores(true);
    DetachedStores task = stores.openDetached(0, "Partition 0", Map.of());
    List<Integer> reported = new CopyOnWriteArrayList<>();

    assertThatThrownBy(() -> stores.restoreDetached(List.of(task), () -> false, reported::add))
        .hasMessageContaining("alpha's head is gone");
    assertThat(reported).isEmpty();
    assertThat(asked).hasSize(1);
    stores.closeDetached(task);
  }

  private StoreRegistry stores(boolean alphaFails) {
    DefaultMetricsRegistry metrics = new DefaultMetricsRegistry(false);
    SingleWriterCounter records = new SingleWriterCounter();
    SingleWriterCounter millis = new SingleWriterCounter();
    return StoreRegistry.create(List.of(alphaStore, betaStore), dir, Map.of(), 1,
        (spec, task) -> new ChangelogWriter(new MemorySystemFactory().producer(context(metrics)),
            0, task),
        system -> new ChangelogRestorer(system, new ChangelogReader(system,
            () -> new MemorySystemFactory().consumer(context(metrics))),
            new WatchedAdmin(system, system.equals("alpha") && alphaFails,
            new MemorySystemFactory().admin(context(metrics))), records, millis, 1),
        StoreFlusher.inline(), false);
  }

  /** The memory system's admin, noting who asks for a head; alpha's fails if told to. */
  private final class WatchedAdmin implements SystemAdmin {
    private final String system;
    private final boolean fails;
    private final SystemAdmin real;

    WatchedAdmin(String system, boolean fails, SystemAdmin real) {
      this.system = system;
      this.fails = fails;
      this.real = real;
    }

    @Override
    public int partitionCount(StreamSpec stream) {
      return real.partitionCount(stream);
    }

    @Override
    public StreamMetadata metadata(StreamSpec stream, int partition) {
      asked.add(system + " on " + Thread.currentThread().getName());
      if (fails) {
        throw new IllegalStateException(system + "'s head is gone");
      }
      return real.metadata(stream, partition);
    }

    @Override
    public int ensureOutput(StreamSpec stream, int partitions) {
      return real.ensureOutput(stream, partitions);
    }
  }

  @SuppressWarnings("unchecked")
  private static KeyValueStore<String, Long> store(DetachedStores task, String name) {
    return (KeyValueStore<String, Long>) task.stores().get(name);
  }

  private static StoreSpec spec(String name, String system, String changelog) {
    return new StoreSpec(name, new MemoryEngine.Factory(), new StringSerde(), new LongSerde(),
        system, changelog, 10, 10, Map.of());
  }

  private static void write(MemoryStream log, String prefix, int records) {
    for (int i = 0; i < records; i++) {
      log.append(0, (prefix + i).getBytes(StandardCharsets.UTF_8),
          new LongSerde().toBytes((long) i));
    }
  }

  private static SystemContext context(DefaultMetricsRegistry metrics) {
    return new TestSystemContext("memory", "stores-restore-test", 0, Map.of(), Map.of(), metrics);
  }
}
