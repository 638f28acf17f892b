package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.OutgoingMessageEnvelope;
import org.apache.samza.system.SystemStream;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition key goes to the partition Samza's Kafka producer chooses for it: |hashCode| mod the
 * partition count, 0 for a hash of Integer.MIN_VALUE (Samza 1.8's KafkaUtil.getIntegerPartitionKey).
 */
class SamzaPartitioningTest {
  @TempDir Path state;

  /** Sends each message with its key as partition key; "int:<n>" sends the Integer n. */
  public static final class KeyedTask implements StreamTask {
    static volatile String output;

    @Override
    public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator) {
      String key = (String) envelope.getKey();
      Object partitionKey = key.startsWith("int:") ? Integer.valueOf(key.substring(4)) : key;
      collector.send(new OutgoingMessageEnvelope(new SystemStream("mem", output), partitionKey,
          "the key", key));
    }
  }

  @Test
  void keyedOutputGoesToThePartitionSamzasKafkaProducerChooses() throws Exception {
    String in = SamzaTestJobs.unique("in");
    String out = SamzaTestJobs.unique("out");
    MemoryStream input = SamzaTestJobs.input(in, 1);
    // Hash codes: "polygenelubricants" Integer.MIN_VALUE, "a" 97, "b" 98, "hello" 99162322,
    // -7, 10. Three partitions: MIN_VALUE % 3 is -2, so Samza's special case shows.
    for (String key : List.of("polygenelubricants", "a", "b", "hello", "int:-7", "int:10")) {
      input.append(0, key, key);
    }
    input.seal();
    MemoryStreams.create(out, 3);
    KeyedTask.output = out;
    Map<String, String> config = SamzaTestJobs.memoryJob(KeyedTask.class, in, state);
    config.put("task.outputs", "mem." + out);
    SamzaTestJobs.runToEnd(config);

    List<String> placed = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      for (Envelope e : MemoryStreams.get(out).messages(p)) {
        placed.add(e.value() + "@" + p + " key " + e.key());
      }
    }
    assertThat(placed).containsExactlyInAnyOrder(
        "polygenelubricants@0 key the key", // MIN_VALUE: 0, not a negative partition
        "a@1 key the key", // 97 % 3
        "b@2 key the key", // 98 % 3
        "hello@1 key the key", // 99162322 % 3
        "int:-7@1 key the key", // |-7| % 3
        "int:10@1 key the key"); // 10 % 3
  }
}
