package io.millrace.dsl.translate;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.dsl.config.Applications;
import io.millrace.dsl.config.DslSettings;
import io.millrace.dsl.plan.AsyncRules;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import io.millrace.dsl.plan.StoreDef;
import io.millrace.dsl.runtime.DslAsyncTask;
import io.millrace.dsl.runtime.DslTask;
import io.millrace.spi.job.JobTranslator;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns a job with {@code app.class=<a StreamApplication>} into a Millrace job: the task is
 * {@link DslTask}, its inputs the pipeline's sources, its outputs its sinks, and every store and
 * intermediate stream the pipeline names is declared, named from the job and the user's names
 * (never from a counter):
 * <ul>
 *   <li>a store {@code <name>}: {@code stores.<name>.factory} ({@code dsl.store.factory}), its
 *       serdes, and a changelog {@code <system>.<job.name>-<name>-changelog} where there is a
 *       changelog system ({@code dsl.changelog.system}; by default the inputs' Kafka system, none
 *       on the embedded default, whose RocksDB files are the state);
 *   <li>a repartition before store {@code <name>}: stream {@code <name>-repartition}, written and
 *       read back ({@code streams.<id>.intermediate}), physical name
 *       {@code <job.name>-<name>-repartition}, on {@code dsl.repartition.system} (by default the
 *       inputs' Kafka system, else {@code memory}).
 * </ul>
 * Keys the job sets itself win over those defaults (a store's {@code factory}, a stream's
 * physical name); keys the DSL must own ({@code task.class}, {@code task.inputs},
 * {@code task.outputs}, a serde the pipeline states) are refused if the job sets them otherwise.
 */
public final class DslJobTranslator implements JobTranslator {
  private static final String POOL_SIZE = "job.container.thread.pool.size";
  private static final String MAX_CONCURRENCY = "task.max.concurrency";

  @Override
  public String name() {
    return "dsl";
  }

  @Override
  public boolean accepts(JobConfig config, ClassLoader loader) {
    String app = config.get(DslSettings.APP_CLASS);
    return app != null && Applications.isApplication(app, loader);
  }

  @Override
  public Set<String> ownPrefixes() {
    return Set.of("dsl.");
  }

  @Override
  public Translation translate(JobConfig config, ClassLoader loader) {
    String appClass = config.required(DslSettings.APP_CLASS);
    String job = config.required("job.name");
    for (String owned : List.of("task.class", "task.inputs", "task.outputs")) {
      if (config.get(owned) != null) {
        throw new ConfigException(owned + "=" + config.get(owned) + " in " + config.source()
            + ": a DSL job (" + DslSettings.APP_CLASS + "=" + appClass + ") takes its " + owned
            + " from its pipeline; remove the key");
      }
    }
    Plan plan = Applications.describe(DslSettings.APP_CLASS, appClass, loader);
    DslSettings settings = DslSettings.of(config, kafkaSystemOfInputs(config, plan));
    Map<String, String> out = new TreeMap<>(config.asMap());
    List<String> notes = new ArrayList<>();
    out.remove(DslSettings.APP_CLASS);
    Node async = AsyncRules.check(plan);
    if (async == null) {
      refuseConcurrentRecords(config);
      out.put("task.class", DslTask.class.getName());
    } else {
      // Only a job with a mapAsync pays for the async runtime; the others keep the inline path.
      out.put("task.class", DslAsyncTask.class.getName());
      own(out, config, async, "task.max.concurrency",
          Integer.toString(((Op.MapAsync) async.op()).maxInFlight()));
      own(out, config, async, "task.ordering", "key");
      notes.add(async.describe() + ": an async task, at most " + out.get("task.max.concurrency")
          + " calls in flight, one at a time per key");
    }
    out.put("task.inputs", String.join(",", plan.sources().keySet()));
    List<String> outputs = new ArrayList<>(plan.outputs());
    if (!outputs.isEmpty()) {
      out.put("task.outputs", String.join(",", outputs));
    }
    out.put(DslSettings.TASK_APP_CLASS, appClass);
    out.put(DslSettings.PLAN_DIGEST, plan.digest());
    for (Node node : plan.sources().values()) {
      Op.Source source = (Op.Source) node.op();
      if (source.intermediate()) {
        String p = "streams." + source.streamId() + ".";
        out.putIfAbsent(p + "system", settings.repartitionSystem());
        out.putIfAbsent(p + "physical.name", job + "-" + source.streamId());
        out.put(p + "intermediate", "true");
        // One before a join is made with the other side's partitions (the planner's), or the
        // join would be refused as not co-partitioned.
        if (settings.repartitionPartitions() > 0 && !joinsAnInput(plan, source.streamId())) {
          out.putIfAbsent(p + "partitions", Integer.toString(settings.repartitionPartitions()));
        }
        notes.add("repartition " + source.streamId() + " on " + out.get(p + "system") + " as "
            + out.get(p + "physical.name"));
      }
      serdes(out, config, node, source.streamId(), source.keySerde(), source.valueSerde());
    }
    for (Node node : plan.sinks()) {
      Op.Sink sink = (Op.Sink) node.op();
      serdes(out, config, node, sink.streamId(), sink.keySerde(), sink.valueSerde());
    }
    for (Node node : plan.stores().values()) {
      if (node.op() instanceof Op.WindowAggregate w && w.lateStream() != null) {
        if (w.lateSerdesStated()) {
          serdes(out, config, node, w.lateStream(), w.lateKeySerde(), w.lateValueSerde());
        } else { // found, not stated: the job's own keys win
          String p = "streams." + w.lateStream() + ".";
          if (w.lateKeySerde() != null) {
            out.putIfAbsent(p + "key.serde", serdeClass(node, w.lateKeySerde(), "key"));
          }
          if (w.lateValueSerde() != null) {
            out.putIfAbsent(p + "value.serde", serdeClass(node, w.lateValueSerde(), "value"));
          }
        }
      }
    }
    for (Map.Entry<String, StoreDef> entry : plan.storeDefs().entrySet()) {
      store(out, config, plan.stores().get(entry.getKey()), entry.getValue(), job, settings,
          notes);
    }
    for (Map.Entry<String, Set<String>> group : plan.copartitionGroups().entrySet()) {
      String key = "task.copartition." + group.getKey();
      own(out, config, plan.stores().getOrDefault(group.getKey(), null), key,
          String.join(",", group.getValue()));
      notes.add(group.getKey() + " reads " + String.join(" and ", group.getValue())
          + " by key: they must be co-partitioned (" + key + ")");
    }
    return new Translation(out, notes, operators(plan));
  }

  /**
   * Every operator of the pipeline once, from its sources on, for {@code millrace plan}: its
   * path, its kind, and the name the user gave it (a stream's id, a store's or a join's name).
   */
  private static List<Operator> operators(Plan plan) {
    List<Operator> operators = new ArrayList<>();
    Set<Node> seen = new java.util.HashSet<>();
    java.util.ArrayDeque<Node> next = new java.util.ArrayDeque<>(plan.sources().values());
    while (!next.isEmpty()) {
      Node node = next.poll();
      if (!seen.add(node)) {
        continue;
      }
      Op op = node.op();
      String name = op instanceof Op.Source source ? source.streamId()
          : op instanceof Op.Sink sink ? sink.streamId() : op.group();
      operators.add(new Operator(node.path(), op.kind(), name,
          op.stores().stream().map(StoreDef::name).toList()));
      next.addAll(node.children());
    }
    return operators;
  }

  /** Whether the repartition {@code streamId} is co-partitioned with a stream the job reads. */
  private static boolean joinsAnInput(Plan plan, String streamId) {
    Set<String> inputs = new HashSet<>();
    for (Node node : plan.sources().values()) {
      Op.Source source = (Op.Source) node.op();
      if (!source.intermediate()) {
        inputs.add(source.streamId());
      }
    }
    for (Set<String> group : plan.copartitionGroups().values()) {
      if (group.contains(streamId) && group.stream().anyMatch(inputs::contains)) {
        return true;
      }
    }
    return false;
  }

  private static void store(Map<String, String> out, JobConfig config, Node node,
      StoreDef store, String job, DslSettings settings, List<String> notes) {
    // A window store's keys are panes and a join buffer's values lists of records, both made by
    // the operator with the pipeline's serdes.
    boolean windowed = store.raw() || node.op() instanceof Op.WindowAggregate;
    String p = "stores." + store.name() + ".";
    out.putIfAbsent(p + "factory", settings.storeFactory());
    own(out, config, node, p + "key.serde",
        windowed ? "bytes" : serdeClass(node, store.keySerde(), "key"));
    own(out, config, node, p + "value.serde",
        windowed ? "bytes" : serdeClass(node, store.valueSerde(), "value"));
    if (settings.changelogSystem() != null) {
      out.putIfAbsent(p + "changelog", settings.changelogSystem() + "." + job + "-"
          + store.name() + "-changelog");
    }
    notes.add("store " + store.name() + " (" + node.describe() + ") on "
        + out.get(p + "factory") + (out.get(p + "changelog") == null ? ", no changelog"
        : ", changelog " + out.get(p + "changelog")));
  }

  private static void serdes(Map<String, String> out, JobConfig config, Node node,
      String streamId, Serde<?> keySerde, Serde<?> valueSerde) {
    String p = "streams." + streamId + ".";
    if (keySerde != null) {
      own(out, config, node, p + "key.serde", serdeClass(node, keySerde, "key"));
    }
    if (valueSerde != null) {
      own(out, config, node, p + "value.serde", serdeClass(node, valueSerde, "value"));
    }
  }

  /**
   * A pipeline's operators keep state between records (the emitter, windows, held writes): a
   * task takes one record at a time. On the worker pool, {@code task.max.concurrency} above 1
   * would run several of a task's records at once on different threads.
   */
  private static void refuseConcurrentRecords(JobConfig config) {
    int pool = config.getInt(POOL_SIZE, 0, 0);
    int concurrency = config.getInt(MAX_CONCURRENCY, 1, 1);
    if (pool > 0 && concurrency > 1) {
      throw new ConfigException(MAX_CONCURRENCY + "=" + concurrency + " in " + config.source()
          + ": a DSL job's task takes one record at a time (its operators keep state between "
          + "records), so on the worker pool (" + POOL_SIZE + "=" + pool + ") it must be 1; "
          + "for calls in flight, use mapAsync");
    }
  }

  /** Sets a key the pipeline decides, refusing another value the job set. */
  private static void own(Map<String, String> out, JobConfig config, Node node, String key,
      String value) {
    String set = config.get(key);
    if (set != null && !set.equals(value)) {
      throw new ConfigException(key + "=" + set + " in " + config.source() + ", but "
          + (node == null ? "the pipeline" : node.describe()) + " states " + value
          + ": remove the key, or change the pipeline");
    }
    out.put(key, value);
  }

  /** The class name the runtime makes a pipeline's serde by. */
  private static String serdeClass(Node node, Serde<?> serde, String what) {
    Class<?> type = serde.getClass();
    boolean nameable = Modifier.isPublic(type.getModifiers()) && !type.isAnonymousClass()
        && !type.isLocalClass() && !type.isSynthetic()
        && (type.getEnclosingClass() == null || Modifier.isStatic(type.getModifiers()));
    try {
      if (nameable && Modifier.isPublic(type.getConstructor().getModifiers())) {
        return type.getName();
      }
    } catch (NoSuchMethodException e) {
      // not nameable: said below
    }
    throw new ConfigException("the " + what + " serde of " + node.describe() + " ("
        + type.getName() + ") must be a public class with a public no-argument constructor: "
        + "the runtime makes it by its class name");
  }

  /**
   * The Kafka system the pipeline's own inputs are on, if any: changelogs and repartitions go
   * there by default, so a job spread over processes finds them.
   */
  private static String kafkaSystemOfInputs(JobConfig config, Plan plan) {
    for (Node node : plan.sources().values()) {
      Op.Source source = (Op.Source) node.op();
      String system = config.get("streams." + source.streamId() + ".system");
      if (!source.intermediate() && system != null) {
        String factory = config.get("systems." + system + ".factory", system);
        if (factory.equals("kafka") || factory.endsWith(".KafkaSystemFactory")) {
          return system;
        }
      }
    }
    return null;
  }
}
