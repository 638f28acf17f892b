package io.millrace.kafka.coordinate;

import io.millrace.kafka.settings.KafkaCoordinatorSettings;
import io.millrace.api.config.ConfigException;
import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.spi.coordinator.CoordinatorFactory;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.kafka.settings.KafkaSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code job.coordinator=kafka}: the job's tasks shared among every process that runs it, over a
 * Kafka consumer group. It checks at start what sharing needs and says what is wrong otherwise:
 * every input on one Kafka cluster, the inputs co-partitioned (task k reads partition k of each),
 * no file checkpoints (the checkpoints are the group's offsets), and every store restorable
 * elsewhere (a changelog on that cluster).
 */
public final class KafkaCoordinatorFactory implements CoordinatorFactory {
  @Override
  public String shortName() {
    return "kafka";
  }

  @Override
  public Set<String> keys() {
    return KafkaCoordinatorSettings.KEYS;
  }

  /** Each commit ends a transaction and makes the outputs visible to readers of committed data. */
  @Override
  public long defaultCommitMs() {
    return KafkaCoordinatorSettings.DEFAULT_COMMIT_MS;
  }

  @Override
  public void validate(CoordinatorContext context) {
    settings(context);
  }

  @Override
  public void status(CoordinatorContext context, java.io.PrintStream out) {
    KafkaCoordinatorSettings own = settings(context);
    try {
      new GroupStatus(context, KafkaSettings.of(own.system(), systemConfig(context, own)), own)
          .print(out);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the status of group " + own.groupId() + ": "
          + e, e);
    }
  }

  private static Map<String, String> systemConfig(CoordinatorContext context,
      KafkaCoordinatorSettings own) {
    String prefix = "systems." + own.system() + ".";
    Map<String, String> systemConfig = new java.util.TreeMap<>();
    context.jobConfig().forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        systemConfig.put(k.substring(prefix.length()), v);
      }
    });
    return systemConfig;
  }

  @Override
  public JobCoordinator coordinator(CoordinatorContext context) {
    KafkaCoordinatorSettings own = settings(context);
    return new KafkaCoordinator(context, KafkaSettings.of(own.system(), systemConfig(context, own)),
        own);
  }

  private static KafkaCoordinatorSettings settings(CoordinatorContext context) {
    Map<String, String> job = context.jobConfig();
    List<String> notKafka = new ArrayList<>();
    for (CoordinatorContext.Input input : context.inputs()) {
      if (!isKafka(job, input.system())) {
        notKafka.add("stream " + input.streamId() + " is on system '" + input.system() + "'");
      }
    }
    if (!notKafka.isEmpty()) {
      throw new ConfigException("job.coordinator=kafka shares the job's tasks over a Kafka "
          + "consumer group, so every input must be a Kafka topic: " + String.join(", ", notKafka)
          + ". Use job.coordinator=local to run every task in this process");
    }
    String inputSystem = context.inputs().get(0).system();
    for (CoordinatorContext.Input input : context.inputs()) {
      if (!input.system().equals(inputSystem)) {
        throw new ConfigException("job.coordinator=kafka needs every input on one Kafka "
            + "cluster: stream " + context.inputs().get(0).streamId() + " is on system '"
            + inputSystem + "', stream " + input.streamId() + " on system '" + input.system()
            + "'");
      }
    }
    CoordinatorContext.Input first = context.inputs().get(0);
    for (CoordinatorContext.Input input : context.inputs()) {
      if (input.partitions() != first.partitions()) {
        throw new ConfigException("inputs " + first.streamId() + " (topic "
            + first.physicalName() + ", " + first.partitions() + " partitions) and "
            + input.streamId() + " (topic " + input.physicalName() + ", " + input.partitions()
            + " partitions) have different partition counts: task k reads partition k of every "
            + "input, so under job.coordinator=kafka the inputs must be co-partitioned (give them "
            + "the same count)");
      }
    }
    KafkaCoordinatorSettings own = KafkaCoordinatorSettings.parse(context.jobName(), job,
        context.coordinatorConfig(), inputSystem);
    if (!isKafka(job, own.system())) {
      throw new ConfigException("bad value '" + own.system() + "' for job.coordinator.system: "
          + "not a Kafka system of the job");
    }
    if (!own.system().equals(inputSystem)) {
      throw new ConfigException("job.coordinator.system=" + own.system() + ", but the inputs are "
          + "on system '" + inputSystem + "': the group must live on the inputs' cluster");
    }
    String checkpoints = job.get("task.checkpoint.system");
    if (checkpoints != null && !isKafka(job, checkpoints)) {
      throw new ConfigException("under job.coordinator=kafka the job's checkpoints are its "
          + "group's committed offsets, which every process reads: task.checkpoint.system="
          + checkpoints + " would keep them on this machine. Remove the key (or name the Kafka "
          + "system whose checkpoint topic the job used before, to resume from it)");
    }
    if (io.millrace.kafka.produce.JobTransactions.exactlyOnce(job)) {
      List<String> outputs = new ArrayList<>(List.of(job.getOrDefault("task.outputs", "")
          .split(",")));
      if ("dead-letter".equals(job.get("task.error.policy"))) {
        outputs.add(job.getOrDefault("task.dead.letter.stream", ""));
      }
      for (String output : outputs) {
        String system = job.get("streams." + output.trim() + ".system");
        if (!output.isBlank() && system != null && !system.equals(inputSystem)) {
          throw new ConfigException("output stream " + output.trim() + " is on system '" + system
              + "': under task.processing.guarantee=exactly-once with job.coordinator=kafka "
              + "every output is written in the commit's transaction on the group's Kafka "
              + "system '" + inputSystem + "'");
        }
      }
    }
    for (String store : context.stores()) {
      CoordinatorContext.Changelog log = context.changelogs().stream()
          .filter(c -> c.store().equals(store)).findFirst().orElse(null);
      if (log == null) {
        throw new ConfigException("store " + store + " has no changelog: under "
            + "job.coordinator=kafka its tasks may move to another process, which could not "
            + "restore it. Give it stores." + store + ".changelog=" + inputSystem + "."
            + context.jobName() + "-" + store + "-changelog");
      }
      if (!log.system().equals(inputSystem)) {
        throw new ConfigException("store " + store + " keeps its changelog on system '"
            + log.system() + "': under job.coordinator=kafka it must be on the group's Kafka "
            + "system '" + inputSystem + "'");
      }
    }
    return own;
  }

  /** Whether a system of the job is a Kafka system. */
  static boolean isKafka(Map<String, String> job, String system) {
    String factory = job.get("systems." + system + ".factory");
    if (factory == null) {
      return system.equals("kafka");
    }
    return factory.equals("kafka") || factory.equals(KafkaSettings.SYSTEM_FACTORY);
  }
}
