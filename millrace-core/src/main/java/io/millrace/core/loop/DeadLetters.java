package io.millrace.core.loop;

import io.millrace.api.DeadLetter;
import io.millrace.api.Envelope;
import io.millrace.api.Serde;
import io.millrace.core.output.OutputRoute;
import java.util.Map;

/**
 * Writes failed messages to {@code task.dead.letter.stream}. Its record's key keeps the bytes the
 * failed message's key had, read with the dead-letter stream's own key serde. A message that
 * could not be read has only raw key bytes, and one the task threw on has only a deserialized key
 * (serialized again with its input's key serde here). So one key serde of the dead-letter stream
 * takes both kinds, and the dead letter lands in the partition its input key would choose. Only
 * on the error path, so it may allocate.
 */
public final class DeadLetters {
  private final OutputRoute route;
  private final Serde<Object> keySerde;
  private final Map<String, Serde<Object>> inputKeySerdes;

  /**
   * @param route the dead-letter output
   * @param keySerde the dead-letter stream's key serde
   * @param inputKeySerdes each input stream id's key serde
   */
  public DeadLetters(OutputRoute route, Serde<Object> keySerde,
      Map<String, Serde<Object>> inputKeySerdes) {
    this.route = route;
    this.keySerde = keySerde;
    this.inputKeySerdes = Map.copyOf(inputKeySerdes);
  }

  /** Writes one dead letter with the message's timestamp and headers: that message, set aside. */
  void write(Envelope envelope, Throwable error, String stage, String where) {
    Object key = key(envelope, where);
    try {
      route.send(-1, key, new DeadLetter(envelope.stream(), envelope.partition(),
          envelope.offset(), envelope.key(), envelope.value(), error.toString(), stage),
          envelope.timestamp(), envelope.headers());
    } catch (RuntimeException e) {
      throw new TaskFailedException("cannot write the dead letter of " + where + " to stream "
          + route.id() + ": " + e + " (its value serde must take an io.millrace.api.DeadLetter, "
          + "json does)", e);
    }
  }

  private Object key(Envelope envelope, String where) {
    Object key = envelope.key();
    if (key == null) {
      return null;
    }
    byte[] bytes;
    if (envelope.readError() != null) {
      if (!(key instanceof byte[] raw)) {
        return key; // a system that kept something else than bytes: passed on as it is
      }
      bytes = raw;
    } else {
      Serde<Object> input = inputKeySerdes.get(envelope.stream());
      if (input == null) {
        return key;
      }
      try {
        bytes = input.toBytes(key);
      } catch (RuntimeException notItsType) {
        return key; // a system that does not serialize (memory) may hold keys of any type
      }
    }
    try {
      return keySerde.fromBytes(bytes);
    } catch (RuntimeException e) {
      throw new TaskFailedException("cannot write the dead letter of " + where + " to stream "
          + route.id() + ": its key serde cannot read the failed message's key bytes (" + e
          + "); set streams." + route.id() + ".key.serde to bytes or to the input's key serde", e);
    }
  }
}
