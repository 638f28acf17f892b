package io.millrace.core.output;

import io.millrace.api.Collector;
import io.millrace.api.OutputStream;
import java.util.Map;

/**
 * A task's {@link Collector}: one per task, created at start, so sending allocates nothing. Looking
 * up a stream by name is one {@code HashMap} get on a {@code String} whose hash is cached; the
 * {@link OutputStream} overloads skip even that.
 */
public final class TaskCollector implements Collector {
  private final Map<String, OutputRoute> routes;
  private final String taskName;

  /** A collector over the container's output routes. */
  public TaskCollector(Map<String, OutputRoute> routes, String taskName) {
    this.routes = routes;
    this.taskName = taskName;
  }

  /** The route of an output id. */
  public OutputRoute route(String stream) {
    OutputRoute route = routes.get(stream);
    if (route == null) {
      throw new IllegalArgumentException("task " + taskName + " sent to '" + stream
          + "', which is not in task.outputs " + routes.keySet());
    }
    return route;
  }

  @Override
  public void send(String stream, Object key, Object value) {
    route(stream).send(-1, key, value);
  }

  @Override
  public void send(String stream, int partition, Object key, Object value) {
    route(stream).send(partition, key, value);
  }

  @Override
  public void send(OutputStream stream, Object key, Object value) {
    ((OutputRoute) stream).send(-1, key, value);
  }

  @Override
  public void send(OutputStream stream, int partition, Object key, Object value) {
    ((OutputRoute) stream).send(partition, key, value);
  }
}
