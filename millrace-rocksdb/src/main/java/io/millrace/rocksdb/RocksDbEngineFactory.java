package io.millrace.rocksdb;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.engine.EngineResources;
import io.millrace.spi.engine.EngineSpec;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.engine.StorageEngineFactory;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Env;
import org.rocksdb.Priority;

/**
 * {@code stores.<name>.factory=rocksdb}: a RocksDB instance per store per task, under
 * {@code <job.state.dir>/stores/<store>/task-<n>}.
 *
 * <p>Keys: {@code stores.<name>.rocksdb.<option>} passes any RocksDB option by its native name
 * ({@code write_buffer_size}, {@code compression}, {@code max_background_jobs}, ...), checked by
 * RocksDB's own option parser so a misspelt one stops the job naming it;
 * {@code stores.rocksdb.memory.bytes} bounds the memory of a container's RocksDB stores together
 * (block cache, index and filter blocks, memtables; default 256 MB).
 */
public final class RocksDbEngineFactory implements StorageEngineFactory {
  static final String MEMORY_BYTES = "memory.bytes";
  static final String OPTION_PREFIX = "rocksdb.";

  static {
    RocksDbNativeLibrary.load(); // one extracted copy, not one per JVM
    // RocksDB's flush pool is process-wide and starts with one thread: a commit that syncs
    // several stores at once (EngineSync) would still see their memtables written one by one.
    Env env = Env.getDefault();
    int flushThreads = Math.min(Runtime.getRuntime().availableProcessors(), 4);
    if (env.getBackgroundThreads(Priority.HIGH) < flushThreads) {
      env.setBackgroundThreads(flushThreads, Priority.HIGH);
    }
  }

  @Override
  public String shortName() {
    return "rocksdb";
  }

  @Override
  public Set<String> storeKeys() {
    return Set.of(OPTION_PREFIX + "*");
  }

  @Override
  public Set<String> engineKeys() {
    return Set.of(MEMORY_BYTES);
  }

  @Override
  public void validate(EngineSpec spec) {
    options(spec);
  }

  @Override
  public StorageEngine open(EngineSpec spec, Path dir, EngineResources resources) {
    RocksDbMemory memory = resources.shared("rocksdb", () -> new RocksDbMemory(
        memoryBytes(resources.jobConfig())));
    return RocksDbEngine.open(spec.storeName(), dir, options(spec), memory, resources.instances());
  }

  static long memoryBytes(Map<String, String> jobConfig) {
    return JobConfig.of(jobConfig).getLong("stores.rocksdb." + MEMORY_BYTES,
        RocksDbMemory.DEFAULT_BYTES, 1 << 20);
  }

  /** The store's {@code rocksdb.*} options, split into DB and column-family options. */
  static UserOptions options(EngineSpec spec) {
    Properties db = new Properties();
    Properties cf = new Properties();
    for (Map.Entry<String, String> e : spec.config().entrySet()) {
      if (!e.getKey().startsWith(OPTION_PREFIX)) {
        continue;
      }
      String option = e.getKey().substring(OPTION_PREFIX.length());
      Properties one = new Properties();
      one.put(option, e.getValue());
      try (ColumnFamilyOptions asCf = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(one)) {
        if (asCf != null) {
          cf.put(option, e.getValue());
          continue;
        }
      }
      try (DBOptions asDb = DBOptions.getDBOptionsFromProps(one)) {
        if (asDb != null) {
          db.put(option, e.getValue());
          continue;
        }
      }
      throw new ConfigException("bad key or value: stores." + spec.storeName() + "." + e.getKey()
          + "=" + e.getValue() + " is not a RocksDB option RocksDB accepts (give the native "
          + "name, e.g. stores." + spec.storeName() + ".rocksdb.write_buffer_size=67108864)");
    }
    return new UserOptions(db, cf);
  }

  /** The user's RocksDB options, by kind (native names). */
  record UserOptions(Properties db, Properties cf) {}
}
