package io.millrace.examples.counts;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.WindowableTask;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.api.store.KeyValueStore;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Counts messages per key in a store ({@code counts}: string keys, long values), Samza's RocksDB
 * counting experiment as a job. Every {@code task.window.ms} it sends the keys whose count changed
 * to {@code out}; when bounded inputs end, it sends every count, in key order. The counts survive a
 * restart: in the store's local files, and with {@code stores.counts.changelog} on a changelog a
 * lost machine is restored from.
 */
public final class CountByKeyTask
    implements StreamTask, InitableTask, WindowableTask, EndOfStreamListener {
  private KeyValueStore<String, Long> counts;
  private final Set<String> changed = new LinkedHashSet<>();

  @Override
  public void init(TaskContext context) {
    counts = context.store("counts");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    String key = (String) envelope.key();
    if (key == null) {
      throw new IllegalArgumentException("a message to count needs a key: " + envelope);
    }
    Long count = counts.get(key);
    counts.put(key, count == null ? 1 : count + 1);
    changed.add(key);
  }

  @Override
  public void window(Collector collector, TaskCoordinator coordinator) {
    for (String key : changed) {
      collector.send("out", key, counts.get(key));
    }
    changed.clear();
  }

  @Override
  public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
    try (KeyValueIterator<String, Long> all = counts.all()) {
      while (all.hasNext()) {
        KeyValue<String, Long> entry = all.next();
        collector.send("out", entry.key(), entry.value());
      }
    }
    changed.clear();
  }
}
