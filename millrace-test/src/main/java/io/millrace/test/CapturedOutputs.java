package io.millrace.test;

import io.millrace.api.Collector;
import io.millrace.api.Headers;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import io.millrace.core.async.BufferedCollector;
import io.millrace.core.output.OutputRoute;
import io.millrace.core.output.TaskCollector;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What the task sent, per output stream. The task sends through the job's own collector
 * ({@link TaskCollector} over {@link OutputRoute}s: the same checks, timestamps and messages) in
 * front of a producer that captures what reaches it. An async call's sends are held in a
 * {@link BufferedCollector}, as the loop holds them, and replayed when the call is applied,
 * possibly on another thread: the capture takes a lock.
 */
final class CapturedOutputs {
  private final Map<String, OutputRoute> routes = new LinkedHashMap<>();
  private final String taskName;
  private final Capture capture;
  private final TaskCollector collector;

  CapturedOutputs(Map<String, Integer> partitions, String taskName, LongSupplier clock) {
    this.taskName = taskName;
    this.capture = new Capture(clock);
    for (Map.Entry<String, Integer> output : partitions.entrySet()) {
      routes.put(output.getKey(), new OutputRoute(output.getKey(), capture,
          capture.add(output.getKey()), output.getValue()));
    }
    this.collector = new TaskCollector(routes, taskName);
  }

  /**
   * The collector whose sends are captured at once; they carry {@code inputTimestamp} (-1: sent
   * outside a message), as the job's collector does. The test's thread only.
   */
  Collector collector(long inputTimestamp) {
    collector.processing(inputTimestamp);
    return collector;
  }

  /**
   * A collector that holds an async call's sends until {@link BufferedCollector#replay}; it replays
   * through a collector of its own, since it may do so on the task's thread.
   */
  BufferedCollector held(long inputTimestamp) {
    return new BufferedCollector(new TaskCollector(routes, taskName), inputTimestamp);
  }

  /** The job's collector in front of the capture, for the task's context. */
  TaskCollector taskCollector() {
    return collector;
  }

  List<Output> of(String stream) {
    return capture.of(stream);
  }

  void clear() {
    capture.clear();
  }

  /** The producer behind the routes: what reaches it is what the task sent. */
  private static final class Capture implements SystemProducer {
    private final LongSupplier clock;
    private final List<String> names = new ArrayList<>();
    private final Map<String, List<Output>> sent = new LinkedHashMap<>();

    Capture(LongSupplier clock) {
      this.clock = clock;
    }

    int add(String stream) {
      names.add(stream);
      sent.put(stream, new ArrayList<>());
      return names.size() - 1;
    }

    @Override
    public void send(int index, int partition, Object key, Object value, long timestamp) {
      send(index, partition, key, value, timestamp, Headers.EMPTY);
    }

    @Override
    public synchronized void send(int index, int partition, Object key, Object value,
        long timestamp, Headers headers) {
      String stream = names.get(index);
      sent.get(stream).add(new Output(stream, partition, key, value, timestamp, headers,
          clock.getAsLong()));
    }

    synchronized List<Output> of(String stream) {
      List<Output> outputs = sent.get(stream);
      if (outputs == null) {
        throw new IllegalArgumentException("'" + stream + "' is not one of the task's outputs "
            + sent.keySet() + " (task.outputs)");
      }
      return List.copyOf(outputs);
    }

    synchronized void clear() {
      sent.values().forEach(List::clear);
    }

    @Override
    public void register(int index, StreamSpec stream, int partitionCount) {}

    @Override
    public void start() {}

    @Override
    public void flush() {}

    @Override
    public void stop() {}
  }
}
