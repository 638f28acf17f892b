package io.millrace.samza.translate;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.app.TaskApplications;
import io.millrace.samza.checkpoint.SamzaCheckpointImport;
import io.millrace.samza.config.SamzaJob;
import io.millrace.samza.config.SamzaStream;
import io.millrace.samza.config.StreamKeys;
import io.millrace.samza.serde.SerdeRegistry;
import io.millrace.samza.task.SamzaAsyncTaskAdapter;
import io.millrace.samza.task.SamzaStreamTaskAdapter;
import io.millrace.samza.task.UserTasks;
import io.millrace.spi.job.JobTranslator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs a Samza job's properties: takes a configuration whose {@code task.class} is a Samza task
 * (or task factory), whose {@code app.class} is a Samza application (a {@code TaskApplication}
 * runs; what it declares is written as Samza keys first, {@link TaskApplications}), or that
 * configures Samza's systems ({@code systems.<name>.samza.factory}),
 * and writes the Millrace job that runs it: the adapter task, Samza's streams, systems, stores
 * and task settings in Millrace's keys, and every original key under {@code samza.} for the
 * adapter (the user's task sees them as its Samza {@code Config}).
 *
 * <p>Keys Samza and Millrace share with one meaning ({@code task.window.ms},
 * {@code task.commit.ms}, {@code task.max.concurrency}, {@code task.callback.timeout.ms},
 * {@code job.container.count}, ...) pass as they are, and so does every key this translator
 * does not know: Millrace's validation then names a misspelt one as it names its own. Keys with
 * no meaning here are noted once at start, with why.
 */
public final class SamzaJobTranslator implements JobTranslator {
  static final String KAFKA_CHECKPOINTS = "org.apache.samza.checkpoint.kafka.KafkaCheckpointManagerFactory";
  static final String FILE_CHECKPOINTS =
      "org.apache.samza.checkpoint.file.FileSystemCheckpointManagerFactory";
  static final String JMX_REPORTER = "org.apache.samza.metrics.reporter.JmxReporterFactory";

  @Override
  public String name() {
    return "samza";
  }

  @Override
  public Set<String> ownPrefixes() {
    return Set.of(SamzaJob.ORIGINAL);
  }

  @Override
  public boolean accepts(JobConfig config, ClassLoader loader) {
    Class<?> task = tryLoad(config.get("task.class"), loader);
    if (task != null && UserTasks.isSamzaTask(task)) {
      return true;
    }
    Class<?> app = tryLoad(config.get("app.class"), loader);
    if (app != null && TaskApplications.isSamzaApplication(app)) {
      return true;
    }
    if (task != null && (io.millrace.api.StreamTask.class.isAssignableFrom(task)
        || io.millrace.api.AsyncStreamTask.class.isAssignableFrom(task))) {
      return false;
    }
    // A Samza job whose task class is missing or no Samza task: taken, to say so.
    for (String system : config.idsUnder("systems")) {
      if (config.get("systems." + system + ".samza.factory") != null) {
        return true;
      }
    }
    return false;
  }

  private static Class<?> tryLoad(String name, ClassLoader loader) {
    if (name == null) {
      return null;
    }
    try {
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  @Override
  public Translation translate(JobConfig file, ClassLoader loader) {
    List<String> notes = new ArrayList<>();
    JobConfig config = file;
    boolean async;
    if (file.get("app.class") != null) {
      TaskApplications.Expanded app = TaskApplications.expand(file, loader);
      config = new JobConfig(app.config(), file.source());
      async = app.async();
      notes.addAll(app.notes());
    } else {
      async = UserTasks.isAsync(UserTasks.load(config, loader));
    }
    SamzaJob job = SamzaJob.of(config);
    SerdeRegistry serdes = new SerdeRegistry(config, loader);
    KeyTranslation t = new KeyTranslation();
    t.put("job.name", job.millraceJobName());
    for (String key : List.of("job.name", "app.name", "job.id", "app.id", "task.class", "app.class",
        "task.inputs", "task.outputs", "job.default.system", "job.changelog.system")) {
      t.consume(key);
    }
    t.put("task.class", async ? SamzaAsyncTaskAdapter.class.getName()
        : SamzaStreamTaskAdapter.class.getName());
    // Each task's stores in the changelog partition Samza gives it (the rank of "Partition k"
    // among the task names in text order), so a job moved over, or back, finds its state.
    t.put("job.changelog.partition.order", "samza");
    SystemMapping.map(config, t);
    streams(config, job, serdes, t);
    StoreTranslation.map(config, serdes, t);
    registeredSerdes(config, serdes, t);
    checkpoints(config, t);
    reporters(config, t);
    IgnoredKeys.note(config, t);
    Map<String, String> millrace = new TreeMap<>(t.millraceKeys());
    config.asMap().forEach((key, value) -> {
      if (!t.consumed(key) && !millrace.containsKey(key)
          && !(key.startsWith("streams.") && key.contains(".samza."))) {
        millrace.put(key, value); // Millrace's validation names what is misspelt
      }
      millrace.put(SamzaJob.ORIGINAL + key, value);
    });
    notes.add(0, "runs " + job.taskClass() + " with inputs " + names(job.inputs())
        + " and outputs " + names(job.outputs()));
    notes.addAll(t.notes());
    return new Translation(millrace, notes);
  }

  private static String names(List<SamzaStream> streams) {
    List<String> names = new ArrayList<>();
    for (SamzaStream stream : streams) {
      names.add(stream.samzaName() + (stream.id().equals(stream.physicalName()) ? ""
          : " (stream id " + stream.id() + ")"));
    }
    return names.isEmpty() ? "none" : String.join(", ", names);
  }

  private static void streams(JobConfig config, SamzaJob job, SerdeRegistry serdes,
      KeyTranslation t) {
    StreamKeys keys = new StreamKeys(config);
    List<String> inputs = new ArrayList<>();
    for (SamzaStream s : job.inputs()) {
      inputs.add(s.id());
      stream(config, keys, serdes, s, t);
      String reset = keys.keyOf(s.system(), s.physicalName(), StreamKeys.RESET_OFFSET);
      if (reset != null) {
        t.put("streams." + s.id() + ".offset.reset", config.get(reset));
      }
      // Without a checkpoint Samza starts at upcoming unless told otherwise (Millrace's own
      // default is oldest): written for a stream of a Samza system, so the job keeps Samza's
      // start; a Millrace system standing in (systems.<s>.factory) keeps Millrace's.
      String offset = keys.keyOf(s.system(), s.physicalName(), StreamKeys.OFFSET_DEFAULT);
      if (offset != null) {
        t.put("streams." + s.id() + ".offset.default",
            config.getChoice(offset, "upcoming", "oldest", "upcoming"));
      } else if (config.get("systems." + s.system() + ".samza.factory") != null) {
        t.put("streams." + s.id() + ".offset.default", "upcoming");
      }
      for (String[] same : new String[][] {{StreamKeys.BOOTSTRAP, "bootstrap"},
          {StreamKeys.PRIORITY, "priority"}}) {
        String key = keys.keyOf(s.system(), s.physicalName(), same[0]);
        if (key != null) {
          t.put("streams." + s.id() + "." + same[1], config.get(key));
        }
      }
    }
    List<String> outputs = new ArrayList<>();
    for (SamzaStream s : job.outputs()) {
      outputs.add(s.id());
      stream(config, keys, serdes, s, t);
    }
    t.put("task.inputs", String.join(",", inputs));
    if (!outputs.isEmpty()) {
      t.put("task.outputs", String.join(",", outputs));
    }
  }

  private static void stream(JobConfig config, StreamKeys keys, SerdeRegistry serdes,
      SamzaStream s, KeyTranslation t) {
    String p = "streams." + s.id() + ".";
    t.put(p + "system", s.system());
    t.put(p + "physical.name", s.physicalName());
    for (String serde : new String[] {StreamKeys.KEY_SERDE, StreamKeys.MSG_SERDE}) {
      String key = keys.keyOf(s.system(), s.physicalName(), serde);
      if (key != null) {
        serdes.check(key, config.get(key));
      }
    }
    // Kafka gives bytes, which Samza's serdes (in the adapter) read, or the task itself.
    String factory = t.millraceKeys().get("systems." + s.system() + ".factory");
    if ("kafka".equals(factory != null ? factory : config.get("systems." + s.system() + ".factory"))) {
      t.put(p + "key.serde", "bytes");
      t.put(p + "value.serde", "bytes");
    }
  }

  /**
   * Checks the registered serdes no stream or store uses (those that are used were checked where
   * they are named): Samza makes every one at start, but one whose factory is missing here (a
   * metrics reporter's, from samza-core) is noted rather than refused, since nothing needs it.
   */
  private static void registeredSerdes(JobConfig config, SerdeRegistry serdes,
      KeyTranslation t) {
    for (String key : config.withPrefix("serializers.registry.").keySet()) {
      String full = "serializers.registry." + key;
      t.consume(full);
      if (key.endsWith(".class")) {
        try {
          serdes.check(full, key.substring(0, key.length() - ".class".length()));
        } catch (ConfigException e) {
          t.ignore(full, "its factory is not on the job's class path, and no stream or store"
              + " of the job uses it");
        }
      }
    }
  }

  private static void checkpoints(JobConfig config, KeyTranslation t) {
    String key = "task.checkpoint.factory";
    String factory = config.get(key);
    t.consume(key);
    t.consume("task.checkpoint.system");
    t.consume("task.checkpoint.path");
    t.consume("task.checkpoint.replication.factor");
    t.consume("task.checkpoint.read.versions"); // read by SamzaCheckpointImport
    if (config.get("task.checkpoint.write.versions") != null) {
      t.ignore("task.checkpoint.write.versions", "Millrace writes its own checkpoints; Samza's"
          + " are only read, once, when the job first starts here");
    }
    if (factory == null) {
      return;
    }
    switch (factory) {
      case KAFKA_CHECKPOINTS -> {
        String system = config.get("task.checkpoint.system", config.get("job.default.system"));
        if (system == null) {
          throw config.bad(key, factory, "Kafka checkpoints on a system named by"
              + " task.checkpoint.system (or job.default.system)");
        }
        t.put("task.checkpoint.system", system);
        // A job Samza ran resumes from Samza's checkpoints until it has its own here.
        t.put("task.checkpoint.import", SamzaCheckpointImport.class.getName());
        String replication = config.get("task.checkpoint.replication.factor");
        if (replication != null) {
          t.put("systems." + system + ".checkpoint.replication.factor", replication);
        }
      }
      case FILE_CHECKPOINTS -> {
        t.put("task.checkpoint.system", "file");
        if (config.get("task.checkpoint.path") != null) {
          t.put("task.checkpoint.dir", config.get("task.checkpoint.path"));
        }
      }
      default -> throw config.bad(key, factory, "a checkpoint manager Millrace maps: "
          + KAFKA_CHECKPOINTS + " (Millrace's checkpoints on task.checkpoint.system) or "
          + FILE_CHECKPOINTS + " (file checkpoints in task.checkpoint.path)");
    }
  }

  /** Samza's JMX reporter is Millrace's {@code jmx}; other reporters are noted as ignored. */
  private static void reporters(JobConfig config, KeyTranslation t) {
    String key = "metrics.reporters";
    if (config.get(key) == null) {
      return;
    }
    List<String> millrace = new ArrayList<>();
    for (String reporter : config.getList(key)) {
      String classKey = "metrics.reporter." + reporter + ".class";
      if (JMX_REPORTER.equals(config.get(classKey))) {
        millrace.add("jmx");
        t.consume(classKey);
      } else if (reporter.equals("log") || reporter.equals("jmx")) {
        millrace.add(reporter); // Millrace's own names
      }
    }
    t.consume(key);
    if (!millrace.isEmpty()) {
      t.put(key, String.join(",", millrace));
    }
  }
}
