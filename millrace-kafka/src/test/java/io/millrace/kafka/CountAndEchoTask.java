package io.millrace.kafka;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.store.KeyValueStore;

/**
 * Counts messages per key in the store "counts" (RocksDB with a changelog in the tests) and echoes
 * each value to "out" on its own partition number: every input shows in the output, and the
 * changelog holds the counts.
 */
public final class CountAndEchoTask implements StreamTask, InitableTask {
  private KeyValueStore<String, Long> counts;

  @Override
  public void init(TaskContext context) {
    counts = context.store("counts");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    String key = (String) envelope.key();
    Long count = counts.get(key);
    counts.put(key, count == null ? 1 : count + 1);
    collector.send("out", envelope.partition(), key, envelope.value());
  }
}
