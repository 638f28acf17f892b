package io.millrace.test;

import io.millrace.api.Collector;
import io.millrace.api.Headers;
import io.millrace.api.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What the task sent, per output stream. Sends are checked as the job's collector checks them (a
 * stream not in {@code task.outputs}, a partition out of range); an async call's may come from
 * another thread, hence the lock.
 */
final class CapturedOutputs {
  private final Map<String, Integer> partitions;
  private final LongSupplier clock;
  private final Map<String, List<Output>> sent = new java.util.LinkedHashMap<>();
  private long processing = -1;
  private final Collector direct = new Sink(null, () -> processing);

  CapturedOutputs(Map<String, Integer> partitions, LongSupplier clock) {
    this.partitions = partitions;
    this.clock = clock;
    partitions.keySet().forEach(s -> sent.put(s, new ArrayList<>()));
  }

  /**
   * The collector whose sends are captured at once; they carry {@code inputTimestamp} (-1: sent
   * outside a message), as the job's collector does.
   */
  Collector collector(long inputTimestamp) {
    processing = inputTimestamp;
    return direct;
  }

  /** A collector whose sends go to {@code held} until {@link #addAll} (an async call's). */
  Collector collectorInto(List<Output> held, long inputTimestamp) {
    return new Sink(held, () -> inputTimestamp);
  }

  synchronized void addAll(List<Output> outputs) {
    for (Output o : outputs) {
      sent.get(o.stream()).add(o);
    }
  }

  synchronized List<Output> of(String stream) {
    List<Output> outputs = sent.get(stream);
    if (outputs == null) {
      throw new IllegalArgumentException("'" + stream + "' is not one of the task's outputs "
          + partitions.keySet() + " (task.outputs)");
    }
    return List.copyOf(outputs);
  }

  synchronized void clear() {
    sent.values().forEach(List::clear);
  }

  OutputStream output(String id) {
    Integer count = partitions.get(id);
    if (count == null) {
      throw new IllegalArgumentException("'" + id + "' is not one of the task's outputs "
          + partitions.keySet() + " (task.outputs)");
    }
    return new Resolved(id, count);
  }

  private record Resolved(String id, int partitionCount) implements OutputStream {}

  private final class Sink implements Collector {
    private final List<Output> held;
    /** The timestamp of the message the sends are for (-1: none), their default. */
    private final LongSupplier inputTimestamp;

    Sink(List<Output> held, LongSupplier inputTimestamp) {
      this.held = held;
      this.inputTimestamp = inputTimestamp;
    }

    @Override
    public void send(String stream, int partition, Object key, Object value, long timestamp,
        Headers headers) {
      add(output(stream), partition, key, value, timestamp, headers);
    }

    @Override
    public void send(OutputStream stream, int partition, Object key, Object value,
        long timestamp, Headers headers) {
      add(stream, partition, key, value, timestamp, headers);
    }

    private void add(OutputStream stream, int partition, Object key, Object value,
        long timestamp, Headers headers) {
      if (partition < -1 || partition >= stream.partitionCount()) {
        throw new IllegalArgumentException("partition " + partition + " of output "
            + stream.id() + " does not exist (it has " + stream.partitionCount() + ")");
      }
      Output o = new Output(stream.id(), partition, key, value,
          timestamp != -1 ? timestamp : inputTimestamp.getAsLong(),
          headers == null ? Headers.EMPTY : headers,
          clock.getAsLong());
      if (held != null) {
        synchronized (held) {
          held.add(o);
        }
      } else {
        addAll(List.of(o));
      }
    }
  }
}
