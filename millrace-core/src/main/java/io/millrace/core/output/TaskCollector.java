package io.millrace.core.output;

import io.millrace.api.Collector;
import io.millrace.api.Headers;
import io.millrace.api.Output;
import java.util.Map;

/**
 * A task's {@link Collector}: one per task, created at start, so sending allocates nothing. A task
 * usually sends to the same output with the same (literal, so interned) name: the last name and
 * route are kept and compared by reference first, which saves a {@code HashMap} get and a
 * {@code String.equals} per message (about 6% of the loop thread in a Kafka pass-through profile);
 * the {@link Output} overloads skip even that.
 */
public final class TaskCollector implements Collector {
  private final Map<String, OutputRoute> routes;
  private final String taskName;
  private String lastName;
  private OutputRoute lastRoute;
  /** The timestamp of the message being processed, which its outputs carry; -1 outside one. */
  private long inputTimestamp = -1;

  /** A collector over the container's output routes. */
  public TaskCollector(Map<String, OutputRoute> routes, String taskName) {
    this.routes = routes;
    this.taskName = taskName;
  }

  /** The route of an output id. Loop thread: it caches the last one. */
  public OutputRoute route(String stream) {
    if (stream == lastName) { // identity: the same String object as last time
      return lastRoute;
    }
    OutputRoute route = resolve(stream);
    lastName = stream;
    lastRoute = route;
    return route;
  }

  /**
   * The route of an output id, leaving the loop thread's cache alone: any thread (an async task's
   * sends are checked on its own threads; {@code TaskContext.output} may be called anywhere).
   */
  public OutputRoute resolve(String stream) {
    OutputRoute route = routes.get(stream); // read-only after the container is built
    if (route == null) {
      throw new IllegalArgumentException("task " + taskName + " sent to '" + stream
          + "', which is not in task.outputs " + routes.keySet());
    }
    return route;
  }

  /**
   * The loop is handing the task a message with this timestamp (-1: none): sends default to it. A
   * field write per message, no allocation.
   */
  public void processing(long timestamp) {
    inputTimestamp = timestamp;
  }

  /**
   * The task is called outside a message (a window, a callback, end of stream): its sends carry no
   * timestamp. The loop calls this on those paths rather than resetting after every delivery.
   */
  public void outsideMessage() {
    inputTimestamp = -1;
  }

  @Override
  public void send(String stream, Object key, Object value) {
    route(stream).send(-1, key, value, inputTimestamp, Headers.EMPTY);
  }

  @Override
  public void send(String stream, int partition, Object key, Object value) {
    route(stream).send(partition, key, value, inputTimestamp, Headers.EMPTY);
  }

  @Override
  public void send(Output stream, Object key, Object value) {
    ((OutputRoute) stream).send(-1, key, value, inputTimestamp, Headers.EMPTY);
  }

  @Override
  public void send(Output stream, int partition, Object key, Object value) {
    ((OutputRoute) stream).send(partition, key, value, inputTimestamp, Headers.EMPTY);
  }

  @Override
  public void send(String stream, int partition, Object key, Object value, long timestamp,
      Headers headers) {
    route(stream).send(partition, key, value, timestamp == -1 ? inputTimestamp : timestamp,
        headers == null ? Headers.EMPTY : headers);
  }

  @Override
  public void send(Output stream, int partition, Object key, Object value, long timestamp,
      Headers headers) {
    ((OutputRoute) stream).send(partition, key, value, timestamp == -1 ? inputTimestamp
        : timestamp, headers == null ? Headers.EMPTY : headers);
  }
}
