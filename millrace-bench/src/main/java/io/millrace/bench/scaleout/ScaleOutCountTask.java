package io.millrace.bench.scaleout;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.store.KeyValueStore;

/**
 * Counts records per key in the changelogged RocksDB store {@code counts} and writes an {@link
 * Emission} per record to {@code out} on the task's own partition: the failover scenario's job.
 */
public final class ScaleOutCountTask implements StreamTask, InitableTask {
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
    int task = envelope.partition();
    collector.send("out", task, key, Emission.now(task));
  }
}
