package io.millrace.samza.task;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.StreamPartition;
import io.millrace.api.TaskContext;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.app.TaskApplications;
import io.millrace.samza.config.SamzaJob;
import io.millrace.samza.context.SamzaContext;
import io.millrace.samza.serde.SerdeRegistry;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;
import org.apache.samza.task.EndOfStreamListenerTask;
import org.apache.samza.task.InitableTask;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.TaskCoordinator;
import org.apache.samza.task.WindowableTask;

/**
 * The user's Samza task inside a Millrace task: made in {@link #init} from the Samza job's keys
 * (kept under {@code samza.}), with what each call needs in Samza's terms. Shared by the
 * synchronous and asynchronous adapters.
 *
 * <p>Samza's collector and coordinator for a Millrace one are made once and kept while Millrace
 * hands the same one (a synchronous task's, every message); each kept pair is one immutable
 * object, so tasks on Millrace's worker pool may ask for them at once.
 */
final class AdaptedTask {
  private Object task;
  private InputStreams inputs;
  private OutputRoutes outputs;
  private SamzaCollector collector;
  private SamzaCoordinator coordinator;
  /** The Samza context the task was given, or null (a task that is not initable). */
  private SamzaContext samzaContext;
  /** Whether this task holds the {@link ArrivalClock} open (from a whole init to its close). */
  private boolean clockOpen;

  /** Makes the user's task and calls its {@code init} if it has one. */
  void init(TaskContext context) throws Exception {
    Map<String, String> original = new TreeMap<>();
    context.config().forEach((key, value) -> {
      if (key.startsWith(SamzaJob.ORIGINAL)) {
        original.put(key.substring(SamzaJob.ORIGINAL.length()), value);
      }
    });
    JobConfig config = new JobConfig(original, "the Samza job's configuration");
    SamzaJob job = SamzaJob.of(config);
    ClassLoader loader = loader();
    SerdeRegistry serdes = new SerdeRegistry(config, loader);
    inputs = new InputStreams(job, config, serdes);
    outputs = new OutputRoutes(job, config, serdes, context);
    task = config.get("app.class") != null
        ? TaskApplications.taskFactory(config, loader).createInstance()
        : UserTasks.create(UserTasks.load(config, loader));
    TreeSet<SystemStreamPartition> partitions = new TreeSet<>();
    for (StreamPartition input : context.inputs()) {
      partitions.add(inputs.partition(input.stream(), input.partition()));
    }
    if (task instanceof InitableTask initable) {
      samzaContext = new SamzaContext(context, config, job.samzaJobName(), job.samzaJobId(),
          serdes, partitions, this::collector, this::coordinator);
      initable.init(samzaContext);
    }
    ArrivalClock.SHARED.open();
    clockOpen = true;
  }

  private static ClassLoader loader() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return loader != null ? loader : AdaptedTask.class.getClassLoader();
  }

  /** The user's task. */
  Object task() {
    return task;
  }

  IncomingMessageEnvelope incoming(Envelope envelope) {
    return inputs.incoming(envelope);
  }

  MessageCollector collector(Collector millrace) {
    SamzaCollector kept = collector;
    if (kept == null || kept.millrace != millrace) {
      kept = new SamzaCollector(millrace, outputs);
      collector = kept;
    }
    return kept;
  }

  TaskCoordinator coordinator(io.millrace.api.TaskCoordinator millrace) {
    SamzaCoordinator kept = coordinator;
    if (kept == null || kept.millrace != millrace) {
      kept = new SamzaCoordinator(millrace);
      coordinator = kept;
    }
    return kept;
  }

  void window(Collector out, io.millrace.api.TaskCoordinator coordinator) throws Exception {
    if (task instanceof WindowableTask windowable) {
      windowable.window(collector(out), coordinator(coordinator));
    }
  }

  void endOfStream(Collector out, io.millrace.api.TaskCoordinator coordinator) throws Exception {
    if (task instanceof EndOfStreamListenerTask listener) {
      listener.onEndOfStream(collector(out), coordinator(coordinator));
    }
  }

  // Deprecated in Samza 1.x in favour of application contexts, yet Samza still calls it.
  @SuppressWarnings("deprecation")
  void close() throws Exception {
    try {
      if (task instanceof org.apache.samza.task.ClosableTask closable) {
        closable.close();
      }
    } finally {
      if (clockOpen) {
        clockOpen = false;
        ArrivalClock.SHARED.close();
      }
      if (samzaContext != null) {
        samzaContext.close(); // the task's metrics go with it
      }
    }
  }
}
