package io.millrace.samza.task;

import io.millrace.api.Envelope;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.config.SamzaJob;
import io.millrace.samza.config.SamzaStream;
import io.millrace.samza.serde.SerdeRegistry;
import io.millrace.samza.serde.SerdeUse;
import java.util.HashMap;
import java.util.Map;
import org.apache.samza.Partition;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;

/**
 * Turns Millrace's envelopes into Samza's ({@link DeliveredEnvelope}, a view of Millrace's): the
 * stream id back to Samza's {@link SystemStreamPartition} (made once per partition), key and
 * message through the stream's serdes where it has them, and the moment of delivery, to the
 * {@link ArrivalClock}'s millisecond, as its arrival time.
 */
final class InputStreams {
  private final Map<String, Input> byId = new HashMap<>();
  /**
   * The stream of the last envelope, with its id as the system handed it: a task's messages come
   * from one stream in long runs. One reference, so a task whose calls move between pool threads
   * never reads an id with another stream's input.
   */
  private Last last;

  private record Last(String id, Input input) {}

  private static final class Input implements DeliveredEnvelope.Partitions {
    final SamzaStream stream;
    final StreamSerdes serdes;
    /** Whether the stream has no serde: key and value pass as the system read them. */
    final boolean plain;
    SystemStreamPartition[] partitions = new SystemStreamPartition[0];

    Input(SamzaStream stream, StreamSerdes serdes) {
      this.stream = stream;
      this.serdes = serdes;
      this.plain = serdes.key() == null && serdes.msg() == null;
    }

    @Override
    public SystemStreamPartition partition(int partition) {
      SystemStreamPartition[] known = partitions;
      if (partition >= known.length || known[partition] == null) {
        SystemStreamPartition[] grown = java.util.Arrays.copyOf(known,
            Math.max(known.length, partition + 1));
        grown[partition] = new SystemStreamPartition(stream.system(), stream.physicalName(),
            new Partition(partition));
        // Made by the task's init for each of its partitions, so a task's envelopes (on a pool
        // thread, an async task's) only read them; a race would only make an equal one again.
        partitions = grown;
        return grown[partition];
      }
      return known[partition];
    }
  }

  InputStreams(SamzaJob job, JobConfig config, SerdeRegistry serdes) {
    for (SamzaStream stream : job.inputs()) {
      byId.put(stream.id(), new Input(stream, StreamSerdes.of(config, serdes, stream)));
    }
  }

  /** The Samza partition of a Millrace stream id's partition. */
  SystemStreamPartition partition(String streamId, int partition) {
    return input(streamId).partition(partition);
  }

  /** Samza's envelope for {@code envelope}. */
  IncomingMessageEnvelope incoming(Envelope envelope) {
    Input input = input(envelope.stream());
    long now = ArrivalClock.SHARED.millis();
    if (input.plain) {
      return DeliveredEnvelope.of(envelope, input, now);
    }
    return DeliveredEnvelope.decoded(envelope, input, SerdeUse.read(input.serdes.key(),
        envelope.key()), SerdeUse.read(input.serdes.msg(), envelope.value()), now);
  }

  private Input input(String streamId) {
    // Compared by identity: a system hands the same id string with each of a stream's envelopes.
    Last seen = last;
    if (seen != null && seen.id == streamId) {
      return seen.input;
    }
    Input input = byId.get(streamId);
    if (input == null) {
      throw new IllegalStateException("stream " + streamId + " is not an input of this Samza job");
    }
    last = new Last(streamId, input);
    return input;
  }
}
