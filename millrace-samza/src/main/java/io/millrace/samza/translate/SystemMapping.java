package io.millrace.samza.translate;

import io.millrace.api.config.JobConfig;
import io.millrace.samza.config.StreamKeys;
import java.util.Map;

/**
 * Maps Samza's systems ({@code systems.<name>.samza.factory}) to Millrace's: Kafka to
 * {@code kafka} with its client settings, the in-memory system to {@code memory}. A system that
 * already has Millrace's {@code systems.<name>.factory} keeps it (a test may put a Kafka job on
 * memory streams that way).
 */
final class SystemMapping {
  static final String KAFKA_FACTORY = "org.apache.samza.system.kafka.KafkaSystemFactory";
  static final String MEMORY_FACTORY = "org.apache.samza.system.inmemory.InMemorySystemFactory";
  private static final String ZOOKEEPER = "ZooKeeper is not used: Millrace's Kafka clients need"
      + " only the brokers (systems.<name>.producer/consumer.bootstrap.servers)";
  private static final String FETCH = "Millrace bounds what it fetches with its own"
      + " task.buffer.max.total.bytes (a container's buffers together; task.buffer.max.bytes per"
      + " partition)";

  private SystemMapping() {}

  /** Writes each system's Millrace keys and reads its Samza ones. */
  static void map(JobConfig config, KeyTranslation t) {
    for (String system : config.idsUnder("systems")) {
      String p = "systems." + system + ".";
      String factoryKey = p + "samza.factory";
      String samzaFactory = config.get(factoryKey);
      t.consume(factoryKey);
      String millraceFactory = config.get(p + "factory");
      if (millraceFactory == null && samzaFactory != null) {
        millraceFactory = switch (samzaFactory) {
          case KAFKA_FACTORY -> "kafka";
          case MEMORY_FACTORY -> "memory";
          default -> throw config.bad(factoryKey, samzaFactory, "a Samza system Millrace maps: "
              + KAFKA_FACTORY + " (to Millrace's kafka) or " + MEMORY_FACTORY + " (to memory);"
              + " or set " + p + "factory to a Millrace system");
        };
        t.put(p + "factory", millraceFactory);
      }
      for (String rest : config.withPrefix(p).keySet()) {
        String key = p + rest;
        if (rest.startsWith("streams.") || rest.startsWith("default.stream.")
            || rest.equals(StreamKeys.KEY_SERDE) || rest.equals(StreamKeys.MSG_SERDE)
            || rest.equals(StreamKeys.OFFSET_DEFAULT)) {
          t.consume(key); // stream properties: read per stream (StreamKeys)
        } else if (rest.startsWith("samza.fetch.threshold")) {
          t.ignore(key, FETCH);
        }
      }
      String replication = p + "default.stream.replication.factor";
      if (config.get(replication) != null) {
        t.put(p + "auto.create.replication.factor", config.get(replication));
      }
      if ("kafka".equals(millraceFactory)) {
        kafka(config, system, t);
      }
    }
  }

  private static void kafka(JobConfig config, String system, KeyTranslation t) {
    String p = "systems." + system + ".";
    String servers = null;
    for (String client : new String[] {"producer", "consumer"}) {
      String key = p + client + ".bootstrap.servers";
      if (config.get(key) != null) {
        servers = servers == null ? config.get(key) : servers;
        t.consume(key);
      }
    }
    if (servers != null && config.get(p + "bootstrap.servers") == null) {
      t.put(p + "bootstrap.servers", servers);
    }
    for (Map.Entry<String, String> e : config.withPrefix(p + "consumer.").entrySet()) {
      String key = p + "consumer." + e.getKey();
      if (e.getKey().startsWith("zookeeper.")) {
        t.ignore(key, ZOOKEEPER);
      } else if (e.getKey().equals("auto.offset.reset")) {
        t.ignore(key, "Millrace starts a partition without a checkpoint, or whose checkpointed"
            + " offset is gone, at streams.<id>.samza.offset.default (oldest or upcoming)");
      }
    }
  }
}
