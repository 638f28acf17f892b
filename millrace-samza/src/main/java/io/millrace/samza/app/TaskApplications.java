package io.millrace.samza.app;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.samza.application.SamzaApplication;
import org.apache.samza.application.TaskApplication;
import org.apache.samza.config.MapConfig;
import org.apache.samza.serializers.KVSerde;
import org.apache.samza.serializers.NoOpSerde;
import org.apache.samza.serializers.Serde;
import org.apache.samza.serializers.SerializableSerde;
import org.apache.samza.system.descriptors.InputDescriptor;
import org.apache.samza.system.descriptors.OutputDescriptor;
import org.apache.samza.system.descriptors.StreamDescriptor;
import org.apache.samza.system.descriptors.SystemDescriptor;
import org.apache.samza.task.AsyncStreamTaskFactory;
import org.apache.samza.task.StreamTaskFactory;
import org.apache.samza.task.TaskFactory;

/**
 * A Samza {@link TaskApplication} ({@code app.class}): what its {@code describe} declares becomes
 * the Samza keys a job with {@code task.class} would have written, as Samza's own planner turns
 * descriptors into configuration: the systems' and streams' {@code toConfig()}, {@code
 * task.inputs} and {@code task.outputs}, and each stream's serdes registered as serialized
 * instances ({@code serializers.registry.<name>.samza.serialized.instance}). Keys the job's file
 * sets win over the descriptors'.
 */
public final class TaskApplications {
  private static final String KEY = "app.class";

  private TaskApplications() {}

  /** The application's keys, its task factory and what it declared that is ignored here. */
  public record Expanded(Map<String, String> config, TaskFactory<?> factory, List<String> notes) {
    /** Whether the factory makes {@code AsyncStreamTask}s. */
    public boolean async() {
      return factory instanceof AsyncStreamTaskFactory;
    }
  }

  /** Whether {@code type} is a Samza application of any kind (a task or a stream application). */
  public static boolean isSamzaApplication(Class<?> type) {
    return SamzaApplication.class.isAssignableFrom(type);
  }

  /**
   * Describes the application and writes its declarations as Samza keys.
   *
   * @throws ConfigException naming {@code app.class} if it is not a TaskApplication, declares no
   *     task factory, or declares what Millrace does not run
   */
  public static Expanded expand(JobConfig config, ClassLoader loader) {
    AppDescription app = describe(config, loader);
    Map<String, String> keys = new TreeMap<>();
    List<String> inputs = new ArrayList<>();
    List<String> outputs = new ArrayList<>();
    if (app.defaultSystem != null) {
      system(config, app.defaultSystem, keys);
      keys.put("job.default.system", app.defaultSystem.getSystemName());
    }
    for (InputDescriptor<?, ?> input : app.inputs) {
      if (input.getTransformer().isPresent()) {
        throw refused(config, "input " + input.getStreamId() + " has an InputTransformer, which"
            + " is not supported");
      }
      inputs.add(stream(config, input, keys));
    }
    for (OutputDescriptor<?, ?> output : app.outputs) {
      outputs.add(stream(config, output, keys));
    }
    keys.put("task.inputs", String.join(",", inputs));
    if (!outputs.isEmpty()) {
      keys.put("task.outputs", String.join(",", outputs));
    }
    keys.putAll(config.asMap()); // the file's keys win
    return new Expanded(keys, app.taskFactory, List.copyOf(app.ignored));
  }

  /** The task factory the application declares (the adapter asks it again in each task). */
  public static TaskFactory<?> taskFactory(JobConfig config, ClassLoader loader) {
    return describe(config, loader).taskFactory;
  }

  private static AppDescription describe(JobConfig config, ClassLoader loader) {
    String name = config.required(KEY);
    Class<?> type;
    try {
      type = Class.forName(name, true, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw config.bad(KEY, name, "a Samza TaskApplication on the job's class path (no class "
          + name + "; give the job's jars with --classpath)");
    }
    if (!TaskApplication.class.isAssignableFrom(type)) {
      throw config.bad(KEY, name, "a Samza TaskApplication (org.apache.samza.application."
          + "TaskApplication); " + (isSamzaApplication(type)
              ? "Samza's high-level StreamApplication is not supported (docs/samza.md)"
              : type.getName() + " is not one"));
    }
    TaskApplication application;
    try {
      application = (TaskApplication) type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new ConfigException("cannot create " + KEY + "=" + name + " in " + config.source()
          + ": it needs a public no-argument constructor (" + e + ")");
    }
    AppDescription app = new AppDescription(new MapConfig(config.asMap()));
    application.describe(app);
    if (!app.unsupported.isEmpty()) {
      throw refused(config, String.join("; ", app.unsupported));
    }
    if (!(app.taskFactory instanceof StreamTaskFactory)
        && !(app.taskFactory instanceof AsyncStreamTaskFactory)) {
      throw refused(config, "its describe declares no StreamTaskFactory or"
          + " AsyncStreamTaskFactory (withTaskFactory)");
    }
    return app;
  }

  private static ConfigException refused(JobConfig config, String why) {
    return new ConfigException(KEY + "=" + config.get(KEY) + " in " + config.source() + ": "
        + why + " (docs/samza.md)");
  }

  private static void system(JobConfig config, SystemDescriptor<?> system,
      Map<String, String> keys) {
    if (system.getTransformer().isPresent() || system.getExpander().isPresent()) {
      throw refused(config, "system " + system.getSystemName() + " has an InputTransformer or"
          + " StreamExpander, which is not supported");
    }
    keys.putAll(system.toConfig());
  }

  /** Writes a stream's keys and serdes; returns it as Samza names it, system.stream. */
  private static String stream(JobConfig config, StreamDescriptor<?, ?> stream,
      Map<String, String> keys) {
    system(config, stream.getSystemDescriptor(), keys);
    keys.putAll(stream.toConfig());
    String id = stream.getStreamId();
    Serde<?> serde = stream.getSerde();
    if (serde instanceof KVSerde<?, ?> kv) {
      register(keys, id, "key", kv.getKeySerde());
      register(keys, id, "msg", kv.getValueSerde());
    } else {
      register(keys, id, "msg", serde);
    }
    return stream.getSystemName() + "." + stream.getPhysicalName().orElse(id);
  }

  @SuppressWarnings({"rawtypes", "unchecked"}) // Samza's SerializableSerde of a Serde
  private static void register(Map<String, String> keys, String streamId, String which,
      Serde<?> serde) {
    if (serde == null || serde instanceof NoOpSerde) {
      return; // Samza's NoOpSerde: the objects pass as they are
    }
    String name = "app-" + streamId + "-" + which;
    byte[] bytes = new SerializableSerde().toBytes(serde);
    keys.put("serializers.registry." + name + ".samza.serialized.instance",
        Base64.getEncoder().encodeToString(bytes));
    keys.put("streams." + streamId + ".samza." + which + ".serde", name);
  }
}
