package io.millrace.samza;

import org.apache.samza.context.Context;
import org.apache.samza.storage.kv.KeyValueStore;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.OutgoingMessageEnvelope;
import org.apache.samza.system.SystemStream;
import org.apache.samza.task.InitableTask;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;

/**
 * A stateful Samza task written against Samza's API alone, run on Samza 1.8 and then on Millrace
 * by the migration test: counts each key in a RocksDB store with a changelog, and sends, for each
 * message, {@code partition,offset,count,runtime} keyed by the key. The runtime (samza or
 * millrace) tells the test who processed what.
 */
public final class CountPerKeyTask implements StreamTask, InitableTask {
  static final SystemStream OUTPUT = new SystemStream("kafka", "key-counts");
  private KeyValueStore<String, Integer> counts;
  private String runtime;

  @Override
  @SuppressWarnings("unchecked")
  public void init(Context context) {
    counts = (KeyValueStore<String, Integer>) context.getTaskContext().getStore("counts");
    runtime = context.getJobContext().getClass().getName().startsWith("io.millrace")
        ? "millrace" : "samza";
  }

  @Override
  public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
      TaskCoordinator coordinator) {
    String key = (String) envelope.getKey();
    Integer count = counts.get(key);
    int next = count == null ? 1 : count + 1;
    counts.put(key, next);
    collector.send(new OutgoingMessageEnvelope(OUTPUT, key,
        envelope.getSystemStreamPartition().getPartition().getPartitionId() + ","
            + envelope.getOffset() + "," + next + "," + runtime));
  }
}
