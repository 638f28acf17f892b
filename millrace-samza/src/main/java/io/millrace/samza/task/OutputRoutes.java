package io.millrace.samza.task;

import io.millrace.api.Output;
import io.millrace.api.TaskContext;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.config.SamzaJob;
import io.millrace.samza.config.SamzaStream;
import io.millrace.samza.serde.SerdeRegistry;
import java.util.HashMap;
import java.util.Map;
import org.apache.samza.system.SystemStream;

/**
 * Where a Samza {@link SystemStream} goes: the Millrace output (resolved once) and the stream's
 * serdes. Samza tasks name their outputs only in code, so a send to a stream the job's keys do
 * not name fails with the key to add.
 */
final class OutputRoutes {
  record Route(Output output, StreamSerdes serdes) {}

  private final Map<SystemStream, Route> routes = new HashMap<>();
  private final SerdeRegistry registry;

  OutputRoutes(SamzaJob job, JobConfig config, SerdeRegistry registry, TaskContext context) {
    this.registry = registry;
    for (SamzaStream stream : job.outputs()) {
      routes.put(new SystemStream(stream.system(), stream.physicalName()),
          new Route(context.output(stream.id()), StreamSerdes.of(config, registry, stream)));
    }
  }

  Route route(SystemStream stream) {
    Route route = routes.get(stream);
    if (route == null) {
      throw new IllegalArgumentException("the task sent to " + stream.getSystem() + "."
          + stream.getStream() + ", which is not an output of this job: Millrace opens a job's"
          + " outputs at start, so name it in task.outputs (task.outputs=" + stream.getSystem()
          + "." + stream.getStream() + ", comma-separated) or give it a serde"
          + " (systems." + stream.getSystem() + ".streams." + stream.getStream()
          + ".samza.msg.serde)");
    }
    return route;
  }

  SerdeRegistry registry() {
    return registry;
  }
}
