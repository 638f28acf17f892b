package io.millrace.samza.config;

import io.millrace.api.config.JobConfig;

/**
 * What a Samza job's stores ({@code stores.<name>.*}) say that the translation and the tasks both
 * read: the engine factories Millrace maps, the serde keys, a store's changelog. The mapping of
 * the keys themselves is {@code io.millrace.samza.translate.StoreTranslation}.
 */
public final class StoreMapping {
  /** Samza's RocksDB engine factory, mapped to Millrace's rocksdb. */
  public static final String ROCKSDB_FACTORY =
      "org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory";
  /** Samza's in-memory engine factory, mapped to Millrace's memory. */
  public static final String MEMORY_FACTORY =
      "org.apache.samza.storage.kv.inmemory.InMemoryKeyValueStorageEngineFactory";
  /** Samza's key serde of a store. */
  public static final String KEY_SERDE = "key.serde";
  /** Samza's value serde of a store. */
  public static final String MSG_SERDE = "msg.serde";

  private StoreMapping() {}

  /**
   * The changelog of a store as {@code system.stream}: Samza's {@code stores.<name>.changelog},
   * on {@code job.changelog.system} (or {@code job.default.system}) when it names no system.
   */
  public static String changelog(JobConfig config, String store) {
    String key = "stores." + store + ".changelog";
    String changelog = config.get(key);
    if (changelog == null || changelog.indexOf('.') > 0) {
      return changelog;
    }
    String system = config.get("job.changelog.system", config.get("job.default.system"));
    if (system == null) {
      throw config.bad(key, changelog, "system.stream, or a stream with job.changelog.system"
          + " (or job.default.system) naming its system");
    }
    return system + "." + changelog;
  }
}
