package io.millrace.kafka.settings;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.config.KeyValidator;
import io.millrace.spi.system.SystemContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * A Kafka system's keys ({@code systems.<name>.*}) and the client properties made from them.
 *
 * <p>Millrace's own keys: {@code bootstrap.servers}, {@code auto.create}, {@code
 * auto.create.replication.factor}, {@code checkpoint.topic}, {@code checkpoint.replication.factor},
 * {@code startup.timeout.ms} and the fetch hand-off's {@code handoff.*}. Everything else passes
 * through to the Kafka clients without Millrace knowing each setting: {@code consumer.*},
 * {@code producer.*} and {@code admin.*} to one client, and the settings every client shares
 * (security: {@code security.protocol}, {@code ssl.*}, {@code sasl.*}; {@code client.dns.lookup},
 * ...) to all three. Each pass-through name is checked against the client's own list of settings,
 * so a typo stops the job at start with a suggestion instead of being ignored with a warning.
 */
public final class KafkaSettings {
  /**
   * The Kafka system's factory class, as a job may name it ({@code systems.<name>.factory}); by
   * name, so that the coordinator's package need not see the factory's (a test checks it).
   */
  public static final String SYSTEM_FACTORY = "io.millrace.kafka.KafkaSystemFactory";

  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
  public static final String AUTO_CREATE = "auto.create";
  public static final String AUTO_CREATE_REPLICATION = "auto.create.replication.factor";
  public static final String CHECKPOINT_TOPIC = "checkpoint.topic";
  public static final String CHECKPOINT_REPLICATION = "checkpoint.replication.factor";
  public static final String STARTUP_TIMEOUT_MS = "startup.timeout.ms";
  public static final String HANDOFF_BATCH_SIZE = "handoff.batch.size";
  public static final String HANDOFF_QUEUE_BATCHES = "handoff.queue.batches";
  public static final String POLL_TIMEOUT_MS = "poll.timeout.ms";

  public static final Set<String> OWN_KEYS = Set.of(BOOTSTRAP_SERVERS, AUTO_CREATE,
      AUTO_CREATE_REPLICATION, CHECKPOINT_TOPIC, CHECKPOINT_REPLICATION, STARTUP_TIMEOUT_MS,
      HANDOFF_BATCH_SIZE, HANDOFF_QUEUE_BATCHES, POLL_TIMEOUT_MS);

  /** Settings Millrace owns on each client: a pass-through of them is refused, with the reason. */
  private static final Map<String, String> OWNED = Map.of(
      "key.deserializer", "Millrace deserializes keys with streams.<id>.key.serde",
      "value.deserializer", "Millrace deserializes values with streams.<id>.value.serde",
      "key.serializer", "Millrace serializes keys with streams.<id>.key.serde",
      "value.serializer", "Millrace serializes values with streams.<id>.value.serde",
      "enable.auto.commit", "Millrace commits offsets in its own checkpoints (task.commit.ms)",
      "auto.offset.reset", "use streams.<id>.offset.default (oldest | upcoming)");

  private final String system;
  private final String source;
  private final JobConfig config;
  private final Map<String, String> raw;

  /** The settings of one system, from its context. */
  public KafkaSettings(SystemContext context) {
    this(context.systemName(), context.systemConfig());
  }

  /** The settings of the system {@code system}, given its keys ({@code systems.<name>.} removed). */
  public static KafkaSettings of(String system, Map<String, String> systemConfig) {
    return new KafkaSettings(system, systemConfig);
  }

  private KafkaSettings(String system, Map<String, String> systemConfig) {
    this.system = system;
    this.raw = systemConfig;
    this.config = new JobConfig(prefixed(raw), "systems." + system + ".*");
    this.source = "the job's configuration";
  }

  private Map<String, String> prefixed(Map<String, String> keys) {
    Map<String, String> result = new java.util.TreeMap<>();
    keys.forEach((k, v) -> result.put(key(k), v));
    return result;
  }

  /** The full key of one of this system's settings. */
  public String key(String suffix) {
    return "systems." + system + "." + suffix;
  }

  /** The system's name. */
  public String system() {
    return system;
  }

  /** {@code bootstrap.servers}; required. */
  public String bootstrapServers() {
    String servers = raw.get(BOOTSTRAP_SERVERS);
    if (servers == null || servers.isBlank()) {
      throw new ConfigException("missing required key " + key(BOOTSTRAP_SERVERS) + " in " + source
          + ": the Kafka brokers to connect to, e.g. 127.0.0.1:9092");
    }
    return servers;
  }

  /** Whether missing outputs and the checkpoint topic are created (default true). */
  public boolean autoCreate() {
    return config.getBoolean(key(AUTO_CREATE), true);
  }

  /** Replication of created output topics; -1: the broker's default. */
  public short autoCreateReplication() {
    return (short) config.getInt(key(AUTO_CREATE_REPLICATION), -1, -1);
  }

  /** Replication of the checkpoint topic; -1: the broker's default. */
  public short checkpointReplication() {
    return (short) config.getInt(key(CHECKPOINT_REPLICATION), -1, -1);
  }

  /** The checkpoint topic of a job. */
  public String checkpointTopic(String jobName) {
    return config.get(key(CHECKPOINT_TOPIC), "__millrace-checkpoints-" + jobName);
  }

  /** How long start-up waits for the brokers (metadata, offsets, topic creation), in ms. */
  public long startupTimeoutMs() {
    return config.getLong(key(STARTUP_TIMEOUT_MS), 30_000, 1);
  }

  /** Messages per batch handed from the fetch thread to the loop. */
  public int handoffBatchSize() {
    return config.getInt(key(HANDOFF_BATCH_SIZE), 1024, 1);
  }

  /** Batches that may wait for the loop. */
  public int handoffQueueBatches() {
    return config.getInt(key(HANDOFF_QUEUE_BATCHES), 64, 2);
  }

  /** How long the fetch thread's consumer.poll waits for data, in ms. */
  public long pollTimeoutMs() {
    return config.getLong(key(POLL_TIMEOUT_MS), 100, 1);
  }

  /** Checks every key and value of the system; throws naming the first bad one. */
  public void validate() {
    bootstrapServers();
    autoCreate();
    autoCreateReplication();
    checkpointReplication();
    startupTimeoutMs();
    handoffBatchSize();
    handoffQueueBatches();
    pollTimeoutMs();
    // Top-level keys are checked by the planner against KafkaSystemFactory.systemKeys(); the
    // pass-through groups accept any suffix there, so their names are checked here.
    for (Map.Entry<String, String> entry : raw.entrySet()) {
      String k = entry.getKey();
      if (k.startsWith("consumer.")) {
        check(k, "consumer.", ConsumerConfig.configNames(), entry.getValue());
      } else if (k.startsWith("producer.")) {
        check(k, "producer.", ProducerConfig.configNames(), entry.getValue());
      } else if (k.startsWith("admin.")) {
        check(k, "admin.", AdminClientConfig.configNames(), entry.getValue());
      }
    }
  }

  /**
   * Refuses {@code consumer.isolation.level} set to anything but {@code read_committed}, for a
   * system whose readers must see committed data only ({@code why}): its restores would apply
   * the changelog writes of commits that failed, and its inputs would include aborted records.
   * Unset, Millrace's consumers read committed data there.
   */
  public void requireReadCommitted(String why) {
    String level = raw.get("consumer.isolation.level");
    if (level != null && !level.trim().equals("read_committed")) {
      throw config.bad(key("consumer.isolation.level"), level, "read_committed, or no such key, "
          + "since " + why + ": reading uncommitted data, its stores would restore the "
          + "changelog writes of commits that failed (a crash, a fence) and it would read the "
          + "aborted writes of other transactional jobs");
    }
  }

  private void check(String k, String prefix, Set<String> names, String value) {
    String name = k.substring(prefix.length());
    if (OWNED.containsKey(name)) {
      throw new ConfigException("key " + key(k) + " cannot be set: " + OWNED.get(name));
    }
    if (!names.contains(name)) {
      List<String> candidates = new ArrayList<>();
      for (String n : names) {
        candidates.add(key(prefix + n));
      }
      ConfigException e = KeyValidator.unknown(key(k), value, source, candidates);
      throw new ConfigException(e.getMessage().replace("unknown key", "unknown Kafka "
          + prefix.substring(0, prefix.length() - 1) + " setting"));
    }
  }

  /** Settings every client understands (security, DNS, ...), passed to all three. */
  public static Set<String> shared() {
    Set<String> shared = new TreeSet<>(ConsumerConfig.configNames());
    shared.retainAll(ProducerConfig.configNames());
    shared.retainAll(AdminClientConfig.configNames());
    shared.remove(BOOTSTRAP_SERVERS); // Millrace's own key, passed on explicitly
    return shared;
  }

  /** Properties for a consumer: shared settings, Millrace's defaults, then consumer.*. */
  public Properties consumerProperties(String clientId) {
    Properties p = common(clientId);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"); // out of range: offset.default decides
    // Fewer, larger hand-offs: 1.09x Kafka's 500 consume-only, within the spread (benchmarks.md).
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
    // A consumer has one fetch in flight per broker. When the partitions with data are paused (their
    // buffers full) and the others are caught up, that fetch waits this long for data that does not
    // come, and a partition resumed meanwhile waits with it: Kafka's 500 ms left the loop idle for
    // a second at a time (issue 35). Idle consumers then ask ten times a second instead of twice.
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
        "org.apache.kafka.common.serialization.ByteArrayDeserializer");
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        "org.apache.kafka.common.serialization.ByteArrayDeserializer");
    passThrough(p, "consumer.");
    return p;
  }

  /** Properties for a producer: shared settings, Millrace's defaults, then producer.*. */
  public Properties producerProperties(String clientId) {
    Properties p = common(clientId);
    // Larger batches, fewer requests per record: pass-through 1.29x Kafka's 16 KB (benchmarks.md).
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
        "org.apache.kafka.common.serialization.ByteArraySerializer");
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
        "org.apache.kafka.common.serialization.ByteArraySerializer");
    passThrough(p, "producer.");
    return p;
  }

  /** Properties for an admin client: shared settings, then admin.*. */
  public Properties adminProperties(String clientId) {
    Properties p = common(clientId);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(startupTimeoutMs()));
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
        Long.toString(Math.min(startupTimeoutMs(), 30_000)));
    passThrough(p, "admin.");
    return p;
  }

  private Properties common(String clientId) {
    Properties p = new Properties();
    p.put(BOOTSTRAP_SERVERS, bootstrapServers());
    p.put("client.id", clientId);
    Set<String> shared = shared();
    raw.forEach((k, v) -> {
      if (shared.contains(k)) {
        p.put(k, v);
      }
    });
    return p;
  }

  private void passThrough(Properties p, String prefix) {
    raw.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        p.put(k.substring(prefix.length()), v);
      }
    });
  }
}
