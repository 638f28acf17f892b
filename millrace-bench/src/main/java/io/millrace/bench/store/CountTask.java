package io.millrace.bench.store;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.store.KeyValueStore;

/** Samza's RocksDB experiment: each message reads its key's count and writes count + 1. */
public final class CountTask implements StreamTask, InitableTask {
  private KeyValueStore<Object, Long> counts;

  @Override
  public void init(TaskContext context) {
    counts = context.store("counts");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    Object key = envelope.key();
    Long count = counts.get(key);
    counts.put(key, count == null ? 1L : count + 1);
  }
}
