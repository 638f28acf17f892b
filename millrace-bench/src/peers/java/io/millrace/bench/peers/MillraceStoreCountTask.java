package io.millrace.bench.peers;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.store.KeyValueStore;

/**
 * {@link StoreCountTask} on Millrace's own API: the same work (string keys, long counts, a RocksDB
 * store), to price the Samza adapter.
 */
public final class MillraceStoreCountTask implements StreamTask, InitableTask {
  private final Progress progress = Progress.untimed();
  private KeyValueStore<String, Long> counts;

  @Override
  public void init(TaskContext context) {
    counts = context.store("counts");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    String key = (String) envelope.key();
    Long count = counts.get(key);
    counts.put(key, count == null ? 1L : count + 1);
    progress.onMessage();
  }
}
