package io.millrace.core.store;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.config.KeyValidator;
import io.millrace.spi.engine.StorageEngineFactory;
import io.millrace.core.serde.Serdes;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The {@code stores.<name>.*} keys: a store per name, its engine ({@code factory}), serdes,
 * changelog ({@code <system>.<stream>}), object cache and write batch; engine-wide keys under
 * {@code stores.<engine>.*} (such as {@code stores.rocksdb.memory.bytes}), which is why an
 * engine's short name cannot name a store.
 */
public final class StoreConfig {
  public static final String FACTORY = "factory";
  public static final String KEY_SERDE = "key.serde";
  public static final String VALUE_SERDE = "value.serde";
  public static final String CHANGELOG = "changelog";
  public static final String CACHE_SIZE = "cache.size";
  public static final String WRITE_BATCH_SIZE = "write.batch.size";
  /** Entries of deserialized objects a store keeps: hot keys stay here. */
  public static final int DEFAULT_CACHE_SIZE = 10_000;
  /** Dirty entries that flush the cache early: as many as it holds, so hot keys wait for commit. */
  public static final int DEFAULT_WRITE_BATCH_SIZE = 10_000;
  static final Set<String> KEYS = Set.of(FACTORY, KEY_SERDE, VALUE_SERDE, CHANGELOG, CACHE_SIZE,
      WRITE_BATCH_SIZE);

  private StoreConfig() {}

  /** The engines on the classpath: {@code memory} and those found through ServiceLoader. */
  static List<StorageEngineFactory> engines() {
    List<StorageEngineFactory> engines = new ArrayList<>();
    engines.add(new MemoryEngine.Factory());
    for (StorageEngineFactory found : ServiceLoader.load(StorageEngineFactory.class,
        Thread.currentThread().getContextClassLoader())) {
      engines.add(found);
    }
    return engines;
  }

  /** The store names the job declares (engine-wide groups such as {@code rocksdb} left out). */
  public static Set<String> storeNames(JobConfig config) {
    Set<String> names = new LinkedHashSet<>(config.idsUnder("stores"));
    for (StorageEngineFactory engine : engines()) {
      if (!engine.engineKeys().isEmpty() && !config.asMap().containsKey(
          "stores." + engine.shortName() + "." + FACTORY)) {
        names.remove(engine.shortName());
      }
    }
    return names;
  }

  /**
   * Parses and checks every store: its keys, values, engine and changelog.
   *
   * @param systems the job's system names (a changelog must name one)
   */
  public static List<StoreSpec> parse(JobConfig config, Set<String> systems) {
    List<StoreSpec> specs = new ArrayList<>();
    for (String name : storeNames(config)) {
      String p = "stores." + name + ".";
      StorageEngineFactory engine = engine(config, p + FACTORY);
      String changelog = config.get(p + CHANGELOG);
      String system = null;
      String stream = null;
      if (changelog != null) {
        int dot = changelog.indexOf('.');
        if (dot <= 0 || dot == changelog.length() - 1) {
          throw config.bad(p + CHANGELOG, changelog, "<system>.<stream>, e.g. kafka."
              + name + "-changelog");
        }
        system = changelog.substring(0, dot);
        stream = changelog.substring(dot + 1);
        if (!systems.contains(system)) {
          throw config.bad(p + CHANGELOG, changelog, "a changelog on one of the job's systems "
              + systems + " (no system named " + system + ")");
        }
      }
      int cacheSize = config.getInt(p + CACHE_SIZE, DEFAULT_CACHE_SIZE, 0);
      int writeBatch = config.getInt(p + WRITE_BATCH_SIZE, Math.max(1, Math.min(
          DEFAULT_WRITE_BATCH_SIZE, cacheSize)), 1);
      StoreSpec spec = new StoreSpec(name, engine,
          Serdes.byName(p + KEY_SERDE, config.get(p + KEY_SERDE, "string")),
          Serdes.byName(p + VALUE_SERDE, config.get(p + VALUE_SERDE, "string")),
          system, stream, cacheSize, writeBatch, config.withPrefix(p));
      engine.validate(spec.engineSpec());
      specs.add(spec);
    }
    return specs;
  }

  /** The engine named by {@code key}: a short name or a StorageEngineFactory class name. */
  static StorageEngineFactory engine(JobConfig config, String key) {
    String name = config.get(key);
    if (name == null) {
      throw new ConfigException("missing required key " + key + " in " + config.source()
          + ": the store's engine, rocksdb or memory");
    }
    List<String> known = new ArrayList<>();
    for (StorageEngineFactory engine : engines()) {
      if (engine.shortName().equals(name)) {
        return engine;
      }
      known.add(engine.shortName());
    }
    if (name.equals("rocksdb")) {
      throw new ConfigException("bad value 'rocksdb' for " + key + " in " + config.source()
          + ": the RocksDB engine needs the millrace-rocksdb module on the classpath");
    }
    try {
      Class<?> type = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
      if (StorageEngineFactory.class.isAssignableFrom(type)) {
        return (StorageEngineFactory) type.getDeclaredConstructor().newInstance();
      }
    } catch (ClassNotFoundException | NoSuchMethodException | InstantiationException
        | IllegalAccessException | InvocationTargetException e) {
      // fall through to the error naming what is allowed
    }
    throw config.bad(key, name, "one of " + String.join(", ", known)
        + ", or a StorageEngineFactory class name");
  }

  /**
   * Checks a {@code stores.*} key: a store's own key, its engine's, or an engine-wide key.
   *
   * @throws ConfigException naming the key, with the nearest known one
   */
  public static void checkKey(JobConfig config, String key) {
    String rest = key.substring("stores.".length());
    int dot = rest.indexOf('.');
    String name = dot < 0 ? rest : rest.substring(0, dot);
    String suffix = dot < 0 ? "" : rest.substring(dot + 1);
    List<String> candidates = new ArrayList<>();
    for (StorageEngineFactory engine : engines()) {
      if (engine.shortName().equals(name) && !engine.engineKeys().isEmpty()
          && !config.asMap().containsKey("stores." + name + "." + FACTORY)) {
        if (KeyValidator.allowed(suffix, engine.engineKeys())) {
          return;
        }
        candidates.addAll(KeyValidator.expand("stores." + name + ".", engine.engineKeys()));
        throw KeyValidator.unknown(key, config.asMap().get(key), config.source(), candidates);
      }
    }
    if (KEYS.contains(suffix)) {
      return;
    }
    candidates.addAll(KeyValidator.expand("stores." + name + ".", KEYS));
    String factory = config.get("stores." + name + "." + FACTORY);
    if (factory != null) {
      for (StorageEngineFactory engine : engines()) {
        if (engine.shortName().equals(factory)) {
          if (KeyValidator.allowed(suffix, engine.storeKeys())) {
            return;
          }
          candidates.addAll(KeyValidator.expand("stores." + name + ".", engine.storeKeys()));
        }
      }
    }
    throw KeyValidator.unknown(key, config.asMap().get(key), config.source(), candidates);
  }
}
