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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task whose stores' changelogs sit on two systems: both systems' restores run at once (each
 * one's start waits here until the other's has begun, which one after another never would), the
 * task is reported restored once, after both, and a failure on one system stops the other and is
 * the restore's.
 */
class ChangelogReadersTest {
  private final String alphaLog = "alpha-" + UUID.randomUUID();
  private final String betaLog = "beta-" + UUID.randomUUID();
  private final MemoryStream alpha = MemoryStreams.create(alphaLog, 1);
  private final MemoryStream beta = MemoryStreams.create(betaLog, 1);
  private final StoreSpec alphaStore = spec("a", "alpha", alphaLog);
  private final StoreSpec betaStore = spec("b", "beta", betaLog);
  /** Counted down by each system's first question for its changelog's head. */
  private final CountDownLatch begun = new CountDownLatch(2);
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
    assertThat(store(task, "a").get("a2")).isEqualTo(2L);
    stores.closeDetached(task);
  }

  @Test
  void aFailureOnOneSystemStopsTheOtherAndIsTheRestoresFailure() {
    write(alpha, "a", 3);
    write(beta, "b", 50_000);
    StoreRegistry stores = stores(true);
    DetachedStores task = stores.openDetached(0, "Partition 0", Map.of());
    List<Integer> reported = new CopyOnWriteArrayList<>();

    assertThatThrownBy(() -> stores.restoreDetached(List.of(task), () -> false, reported::add))
        .hasMessageContaining("alpha's head is gone");
    assertThat(reported).isEmpty();
    stores.closeDetached(task);
  }

  private StoreRegistry stores(boolean alphaFails) {
    DefaultMetricsRegistry metrics = new DefaultMetricsRegistry(false);
    SingleWriterCounter records = new SingleWriterCounter();
    SingleWriterCounter millis = new SingleWriterCounter();
    return StoreRegistry.create(List.of(alphaStore, betaStore), dir, Map.of(), 1,
        (spec, task) -> new ChangelogWriter(new MemorySystemFactory().producer(context(metrics)),
            0, task),
        system -> new ChangelogRestorer(system, () -> new MemorySystemFactory().consumer(
            context(metrics)), new MeetingAdmin(system, system.equals("alpha") && alphaFails,
            new MemorySystemFactory().admin(context(metrics))), records, millis, 1),
        StoreFlusher.inline(), false);
  }

  /** The memory system's admin, but each system's first head waits for the other's. */
  private final class MeetingAdmin implements SystemAdmin {
    private final String system;
    private final boolean fails;
    private final SystemAdmin real;

    MeetingAdmin(String system, boolean fails, SystemAdmin real) {
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
      begun.countDown();
      try {
        if (!begun.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException(system + "'s restore began, the other's not within "
              + "10 s: one after the other");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
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
