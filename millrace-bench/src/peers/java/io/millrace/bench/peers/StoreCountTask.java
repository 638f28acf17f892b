package io.millrace.bench.peers;

import org.apache.samza.context.Context;
import org.apache.samza.storage.kv.KeyValueStore;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.task.InitableTask;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;

/**
 * Samza's RocksDB experiment: each message reads its key's count in the store and writes count + 1.
 * Public with a no-argument constructor so that Millrace can run it as a Samza job's
 * {@code task.class} ({@link SamzaTaskOnMillrace}); there it counts into a progress of its own.
 */
public final class StoreCountTask implements StreamTask, InitableTask {
  private final Progress progress;
  private KeyValueStore<String, Long> counts;

  /** As Millrace makes it from {@code task.class}: its own, untimed progress. */
  public StoreCountTask() {
    this(Progress.untimed());
  }

  StoreCountTask(Progress progress) {
    this.progress = progress;
  }

  @Override
  @SuppressWarnings("unchecked") // the store is configured with string keys and long values
  public void init(Context context) {
    counts = (KeyValueStore<String, Long>) context.getTaskContext().getStore("counts");
  }

  @Override
  public void process(IncomingMessageEnvelope envelope, MessageCollector collector, TaskCoordinator coordinator) {
    String key = (String) envelope.getKey();
    Long count = counts.get(key);
    counts.put(key, count == null ? 1L : count + 1);
    progress.onMessage();
  }
}
