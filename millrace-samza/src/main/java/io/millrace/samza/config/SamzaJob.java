package io.millrace.samza.config;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A Samza job as its configuration describes it: its task class, its input and output streams
 * with the ids the Millrace job gives them. The translator and the adapter task both build it
 * from the same keys, so both name the streams alike (translation is deterministic).
 */
public final class SamzaJob {
  /** The prefix the Samza job's own keys are kept under in the translated job. */
  public static final String ORIGINAL = "samza.";

  private final JobConfig config;
  private final String taskClass;
  private final List<SamzaStream> inputs;
  private final List<SamzaStream> outputs;
  private final Map<String, SamzaStream> byName = new HashMap<>();

  private SamzaJob(JobConfig config, String taskClass, List<SamzaStream> inputs,
      List<SamzaStream> outputs) {
    this.config = config;
    this.taskClass = taskClass;
    this.inputs = List.copyOf(inputs);
    this.outputs = List.copyOf(outputs);
    for (SamzaStream s : inputs) {
      byName.put(s.samzaName(), s);
    }
    for (SamzaStream s : outputs) {
      byName.put(s.samzaName(), s);
    }
  }

  /**
   * Reads a Samza job's streams.
   *
   * @param config the Samza job's keys
   * @throws ConfigException naming the key and value of a stream Samza's way cannot name
   */
  public static SamzaJob of(JobConfig config) {
    String taskClass = config.get("task.class", config.get("app.class"));
    if (taskClass == null) {
      throw new ConfigException("missing required key task.class in " + config.source()
          + ": the Samza job's task (or app.class, its TaskApplication)");
    }
    List<String[]> in = new ArrayList<>();
    for (String name : config.getList("task.inputs")) {
      in.add(split(config, "task.inputs", name));
    }
    if (in.isEmpty()) {
      throw new ConfigException("missing required key task.inputs in " + config.source()
          + ": the Samza job's inputs, as system.stream, comma-separated");
    }
    if (config.get("task.broadcast.inputs") != null) {
      throw new ConfigException("task.broadcast.inputs=" + config.get("task.broadcast.inputs")
          + " in " + config.source() + ": broadcast inputs are not supported (docs/samza.md);"
          + " each task reads its own partition of every input");
    }
    Set<String> inputNames = new TreeSet<>();
    for (String[] s : in) {
      inputNames.add(s[0] + "." + s[1]);
    }
    Set<String> outputNames = new TreeSet<>();
    for (String name : config.getList("task.outputs")) {
      String[] s = split(config, "task.outputs", name);
      outputNames.add(s[0] + "." + s[1]);
    }
    outputNames.addAll(configuredStreams(config));
    outputNames.removeAll(inputNames);
    outputNames.removeAll(notOutputs(config));
    Map<String, String> ids = ids(inputNames, outputNames);
    List<SamzaStream> inputs = new ArrayList<>();
    for (String[] s : in) {
      inputs.add(new SamzaStream(s[0], s[1], ids.get(s[0] + "." + s[1])));
    }
    List<SamzaStream> outputs = new ArrayList<>();
    for (String name : outputNames) {
      int dot = name.indexOf('.');
      outputs.add(new SamzaStream(name.substring(0, dot), name.substring(dot + 1), ids.get(name)));
    }
    return new SamzaJob(config, taskClass, inputs, outputs);
  }

  /** The Samza job's keys. */
  public JobConfig config() {
    return config;
  }

  /** The user's task class ({@code task.class}), or its application ({@code app.class}). */
  public String taskClass() {
    return taskClass;
  }

  /** The inputs, in {@code task.inputs} order. */
  public List<SamzaStream> inputs() {
    return inputs;
  }

  /** The streams a task may send to, in name order. */
  public List<SamzaStream> outputs() {
    return outputs;
  }

  /** The input or output {@code system.stream}, or null if the job has no such stream. */
  public SamzaStream stream(String system, String physicalName) {
    return byName.get(system + "." + physicalName);
  }

  /** The Millrace job's name: {@code job.name} (or {@code app.name}), with {@code -<job.id>}. */
  public String millraceJobName() {
    String name = config.get("job.name", config.get("app.name"));
    if (name == null) {
      throw new ConfigException("missing required key job.name in " + config.source()
          + ": the Samza job's name (job.name or app.name)");
    }
    String id = config.get("job.id", config.get("app.id"));
    return id == null ? name : name + "-" + id;
  }

  /** Samza's job id ({@code job.id}, {@code 1} by default, as Samza's). */
  public String samzaJobId() {
    return config.get("job.id", config.get("app.id", "1"));
  }

  /** Samza's job name. */
  public String samzaJobName() {
    return config.get("job.name", config.get("app.name"));
  }

  private static String[] split(JobConfig config, String key, String name) {
    int dot = name.indexOf('.');
    if (dot <= 0 || dot == name.length() - 1) {
      throw config.bad(key, config.get(key), "streams as Samza names them, system.stream"
          + " (e.g. kafka.PageViewEvent), comma-separated; '" + name + "' has no system");
    }
    return new String[] {name.substring(0, dot), name.substring(dot + 1)};
  }

  /**
   * The streams the configuration gives properties to, which a task may send to: Samza jobs
   * name their outputs only in code, so these and {@code task.outputs} are all the adapter can
   * know before the first send.
   */
  private static Set<String> configuredStreams(JobConfig config) {
    Set<String> names = new TreeSet<>();
    for (String id : config.idsUnder("streams")) {
      String p = "streams." + id + ".";
      String system = config.get(p + "samza.system", config.get("job.default.system"));
      if (system != null && !config.withPrefix(p + "samza.").isEmpty()) {
        names.add(system + "." + config.get(p + "samza.physical.name", id));
      }
    }
    for (String system : config.idsUnder("systems")) {
      String p = "systems." + system + ".streams.";
      for (String rest : config.withPrefix(p).keySet()) {
        int cut = rest.indexOf(".samza.");
        if (cut > 0) {
          names.add(system + "." + rest.substring(0, cut));
        }
      }
    }
    return names;
  }

  /** Streams with properties that are not outputs: changelogs, metrics streams. */
  private static Set<String> notOutputs(JobConfig config) {
    Set<String> names = new TreeSet<>();
    for (String store : config.idsUnder("stores")) {
      String changelog = StoreMapping.changelog(config, store);
      if (changelog != null) {
        names.add(changelog);
      }
    }
    for (String reporter : config.idsUnder("metrics.reporter")) {
      String stream = config.get("metrics.reporter." + reporter + ".stream");
      if (stream != null) {
        names.add(stream);
      }
    }
    return names;
  }

  /** Ids in name order: the sanitized physical name, with -2, -3, ... where it is taken. */
  private static Map<String, String> ids(Set<String> inputs, Set<String> outputs) {
    Set<String> all = new TreeSet<>(inputs);
    all.addAll(outputs);
    Set<String> taken = new HashSet<>();
    Map<String, String> ids = new LinkedHashMap<>();
    for (String name : all) {
      String base = sanitize(name.substring(name.indexOf('.') + 1));
      String id = base;
      for (int n = 2; !taken.add(id); n++) {
        id = base + "-" + n;
      }
      ids.put(name, id);
    }
    return ids;
  }

  private static String sanitize(String name) {
    return name.replaceAll("[^A-Za-z0-9_-]", "_");
  }
}
