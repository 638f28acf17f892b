package io.millrace.samza.translate;

import static io.millrace.samza.config.StoreMapping.KEY_SERDE;
import static io.millrace.samza.config.StoreMapping.MEMORY_FACTORY;
import static io.millrace.samza.config.StoreMapping.MSG_SERDE;
import static io.millrace.samza.config.StoreMapping.ROCKSDB_FACTORY;
import static io.millrace.samza.config.StoreMapping.changelog;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.serde.SameBytesSerde;
import io.millrace.samza.serde.SerdeRegistry;

/**
 * Maps Samza's stores ({@code stores.<name>.*}) to Millrace's: RocksDB and in-memory engines,
 * changelogs, the object cache and write batch. A Millrace store holds the bytes of Samza's
 * serdes, so its files and changelog records are what Samza's would be: Millrace's own serde
 * where one makes the same bytes ({@link SameBytesSerde}), else {@code bytes} and the adapter
 * store applies Samza's.
 */
final class StoreTranslation {
  private static final String ROCKSDB_TUNING = "Samza's RocksDB settings are not mapped: Millrace"
      + " tunes a store with stores.<name>.rocksdb.<RocksDB's own option name> and the memory of"
      + " all stores with stores.rocksdb.memory.bytes";
  private static final String LARGE = "Millrace's stores do not drop or refuse large messages";

  private StoreTranslation() {}

  /** Millrace's serde of a store whose Samza serde is {@code samzaName} (null: none). */
  private static String millraceSerde(JobConfig config, String samzaName) {
    SameBytesSerde same = SameBytesSerde.of(config, samzaName);
    return same != null ? same.millraceName() : "bytes";
  }

  static void map(JobConfig config, SerdeRegistry serdes, KeyTranslation t) {
    for (String store : config.idsUnder("stores")) {
      String p = "stores." + store + ".";
      if (store.equals("rocksdb")) {
        continue; // Millrace's engine-wide stores.rocksdb.* keys
      }
      String factoryKey = p + "factory";
      String factory = config.get(factoryKey);
      if (factory == null) {
        throw new ConfigException("missing required key " + factoryKey + " in " + config.source()
            + ": the store's engine, " + ROCKSDB_FACTORY + " or " + MEMORY_FACTORY);
      }
      t.put(factoryKey, switch (factory) {
        case ROCKSDB_FACTORY, "rocksdb" -> "rocksdb";
        case MEMORY_FACTORY, "memory" -> "memory";
        default -> throw config.bad(factoryKey, factory, "a store engine Millrace maps: "
            + ROCKSDB_FACTORY + " (to Millrace's rocksdb) or " + MEMORY_FACTORY + " (to memory)");
      });
      for (String serde : new String[] {KEY_SERDE, MSG_SERDE}) {
        String key = p + serde;
        if (config.get(key) != null) {
          serdes.check(key, config.get(key));
          t.consume(key);
        }
      }
      t.put(p + "key.serde", millraceSerde(config, config.get(p + KEY_SERDE)));
      t.put(p + "value.serde", millraceSerde(config, config.get(p + MSG_SERDE)));
      String changelog = changelog(config, store);
      if (changelog != null) {
        t.put(p + "changelog", changelog);
      }
      if (config.get(p + "object.cache.size") != null) {
        t.put(p + "cache.size", config.get(p + "object.cache.size"));
        t.consume(p + "object.cache.size");
      }
      if (config.get(p + "side.inputs") != null) {
        throw new ConfigException(p + "side.inputs=" + config.get(p + "side.inputs") + " in "
            + config.source() + ": stores fed by side inputs are not supported (docs/samza.md)");
      }
      for (String rest : config.withPrefix(p).keySet()) {
        String key = p + rest;
        // Samza's RocksDB settings have dots (block.size.bytes); RocksDB's own names do not.
        if (rest.startsWith("rocksdb.") && rest.substring("rocksdb.".length()).contains(".")) {
          t.ignore(key, ROCKSDB_TUNING);
        } else if (rest.contains("large.messages") || rest.equals("changelog.max.msg.size.bytes")) {
          t.ignore(key, LARGE);
        } else if (rest.equals("changelog.replication.factor")) {
          t.ignore(key, "Millrace creates changelogs with the system's"
              + " auto.create.replication.factor (systems.<name>.default.stream.replication.factor)");
        }
      }
    }
  }
}
