package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.system.memory.MemoryStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.samza.context.Context;
import org.apache.samza.storage.kv.Entry;
import org.apache.samza.storage.kv.KeyValueIterator;
import org.apache.samza.storage.kv.KeyValueSnapshot;
import org.apache.samza.storage.kv.KeyValueStore;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.task.InitableTask;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Samza's whole KeyValueStore interface over Millrace's stores, on RocksDB and in memory. */
class SamzaStoreTest {
  @TempDir Path state;
  static final List<String> RESULTS = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void reset() {
    RESULTS.clear();
  }

  /** On "exercise", calls every method of the store and records what each gave; on "read", all. */
  public static final class StoreTask implements StreamTask, InitableTask {
    private KeyValueStore<String, String> store;

    @Override
    @SuppressWarnings("unchecked")
    public void init(Context context) {
      store = (KeyValueStore<String, String>) context.getTaskContext().getStore("kv");
    }

    @Override
    public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator) {
      if (envelope.getMessage().equals("read")) {
        RESULTS.add("all " + list(store.all()));
        return;
      }
      store.put("a", "1");
      store.put("b", "2");
      store.put("c", "3");
      store.put("d", "4");
      RESULTS.add("get a " + store.get("a"));
      store.putAll(Arrays.asList(new Entry<>("e", "5")));
      store.delete("b");
      RESULTS.add("getAll " + new TreeMap<>(store.getAll(Arrays.asList("a", "b", "e", "zz"))));
      store.delete("c");
      store.deleteAll(List.of("d"));
      RESULTS.add("range " + list(store.range("a", "e")));
      RESULTS.add("all " + list(store.all()));
      KeyValueSnapshot<String, String> snapshot = store.snapshot("a", "z");
      store.put("f", "6");
      store.delete("a");
      RESULTS.add("snapshot " + list(snapshot.iterator()) + " again " + list(snapshot.iterator()));
      snapshot.close();
      RESULTS.add("after " + list(store.all()) + " get a " + store.get("a"));
      // Samza's stores refuse nulls (its NullSafeKeyValueStore), and a putAll with one writes none.
      RESULTS.add("put null " + refused(() -> store.put("e", null)));
      RESULTS.add("putAll with a null " + refused(() -> store.putAll(
          Arrays.asList(new Entry<>("x", "9"), new Entry<>("y", null)))));
      RESULTS.add("put null key " + refused(() -> store.put(null, "1")));
      RESULTS.add("get null key " + refused(() -> store.get(null)));
      RESULTS.add("after nulls " + list(store.all()));
      store.flush();
    }

    private static String refused(Runnable call) {
      try {
        call.run();
        return "accepted";
      } catch (NullPointerException e) {
        return "refused: " + e.getMessage();
      }
    }

    private static List<String> list(KeyValueIterator<String, String> it) {
      List<String> entries = new ArrayList<>();
      try {
        while (it.hasNext()) {
          Entry<String, String> e = it.next();
          entries.add(e.getKey() + "=" + e.getValue());
        }
      } finally {
        it.close();
      }
      return entries;
    }
  }

  private Map<String, String> job(String in, String factory) {
    Map<String, String> config = SamzaTestJobs.memoryJob(StoreTask.class, in, state);
    config.put("job.name", "store-" + in); // the same job when run again
    config.put("stores.kv.factory", factory);
    config.put("stores.kv.key.serde", "string");
    config.put("stores.kv.msg.serde", "string");
    config.put("stores.kv.changelog", "mem." + in + "-changelog");
    return config;
  }

  private void runOn(String in, String factory, String message) throws Exception {
    MemoryStream input = SamzaTestJobs.input(in + "-" + message, 1);
    input.append(0, null, message);
    input.seal();
    Map<String, String> config = job(in, factory);
    config.put("task.inputs", "mem." + in + "-" + message);
    SamzaTestJobs.runToEnd(config);
  }

  private void everyMethodBehavesAsSamzasOn(String factory) throws Exception {
    String in = SamzaTestJobs.unique("kv");
    runOn(in, factory, "exercise");
    assertThat(RESULTS).containsExactly(
        "get a 1",
        "getAll {a=1, e=5}",
        "range [a=1]",
        "all [a=1, e=5]",
        "snapshot [a=1, e=5] again [a=1, e=5]",
        "after [e=5, f=6] get a null",
        "put null refused: Null is not a valid value.",
        "putAll with a null refused: Null is not a valid value.",
        "put null key refused: Null is not a valid key.",
        "get null key refused: Null is not a valid key.",
        "after nulls [e=5, f=6]");
    RESULTS.clear();
    runOn(in, factory, "read");
    assertThat(RESULTS).as("the store as the first run left it, after a restart")
        .containsExactly("all [e=5, f=6]");
  }

  @Test
  void everyMethodOfARocksDbStoreBehavesAsSamzasAndItsStateOutlivesTheJob() throws Exception {
    everyMethodBehavesAsSamzasOn(SamzaTestJobs.ROCKSDB_FACTORY);
  }

  @Test
  void everyMethodOfAnInMemoryStoreBehavesAsSamzasAndItsChangelogRestoresIt() throws Exception {
    everyMethodBehavesAsSamzasOn(
        "org.apache.samza.storage.kv.inmemory.InMemoryKeyValueStorageEngineFactory");
  }
}
