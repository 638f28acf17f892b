package io.millrace.core.job;

import static io.millrace.core.config.CoreKeys.*;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.config.KeyValidator;
import io.millrace.core.config.ConfigKey;
import io.millrace.core.config.CoreKeys;
import io.millrace.core.store.StoreConfig;
import io.millrace.spi.coordinator.CoordinatorFactory;
import io.millrace.spi.system.SystemFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every key of a job's configuration is one something reads: core's, a system's, a stream's, a
 * store's, the coordinator's, or a translator's own. A misspelt key stops the job at planning,
 * named with the keys it may have meant.
 */
final class KnownKeys {
  private static final Set<String> CORE_KEYS = new TreeSet<>();
  private static final Set<String> STREAM_KEYS = Set.of(S_SYSTEM, S_PHYSICAL_NAME, S_KEY_SERDE,
      S_VALUE_SERDE, S_PRIORITY, S_BOOTSTRAP, S_OFFSET_DEFAULT, S_OFFSET_RESET,
      S_POLL_INTERVAL_MS, S_PARTITIONS, S_INTERMEDIATE);

  static {
    for (ConfigKey key : CoreKeys.ALL) {
      if (!key.pattern().contains("<")) {
        CORE_KEYS.add(key.pattern());
      }
    }
  }

  private KnownKeys() {}

  /** Checks every key; the first unknown one is refused with its likeliest meanings. */
  static void check(JobConfig config, Map<String, SystemFactory> factories,
      CoordinatorFactory coordinator) {
    List<String> known = new ArrayList<>(CORE_KEYS);
    String coordinatorPrefix = COORDINATOR + ".";
    Set<String> translators =
        JobTranslators.ownPrefixes(config, Thread.currentThread().getContextClassLoader());
    keys:
    for (String key : config.asMap().keySet()) {
      if (CORE_KEYS.contains(key) || key.equals(JobTranslators.MARK)) {
        continue;
      }
      for (String prefix : translators) {
        if (key.startsWith(prefix)) {
          continue keys; // the translator checked them
        }
      }
      if (key.startsWith(COPARTITION_PREFIX) && key.length() > COPARTITION_PREFIX.length()) {
        continue; // checked against the inputs when the job is planned
      }
      if (key.isBlank()) {
        throw new ConfigException("a key in " + config.source() + " is empty (its value is '"
            + config.asMap().get(key) + "'): a line of a job file is key=value");
      }
      if (key.startsWith(coordinatorPrefix)) {
        String suffix = key.substring(coordinatorPrefix.length());
        if (KeyValidator.allowed(suffix, coordinator.keys())) {
          continue;
        }
        List<String> candidates = KeyValidator.expand(coordinatorPrefix, coordinator.keys());
        candidates.addAll(known);
        throw KeyValidator.unknown(key, config.asMap().get(key), config.source(), candidates);
      }
      if (key.startsWith("systems.")) {
        String rest = key.substring("systems.".length());
        int dot = rest.indexOf('.');
        String system = dot < 0 ? rest : rest.substring(0, dot);
        String suffix = dot < 0 ? "" : rest.substring(dot + 1);
        SystemFactory factory = factories.get(system);
        if (suffix.equals("factory")) {
          continue;
        }
        Set<String> allowed = factory == null ? Set.of() : factory.systemKeys();
        if (KeyValidator.allowed(suffix, allowed)) {
          continue;
        }
        List<String> candidates = KeyValidator.expand("systems." + system + ".", allowed);
        candidates.add("systems." + system + ".factory");
        throw KeyValidator.unknown(key, config.asMap().get(key), config.source(), candidates);
      }
      if (key.startsWith("stores.")) {
        StoreConfig.checkKey(config, key);
        continue;
      }
      if (key.startsWith("streams.")) {
        String rest = key.substring("streams.".length());
        int dot = rest.indexOf('.');
        if (dot > 0) {
          String id = rest.substring(0, dot);
          String suffix = rest.substring(dot + 1);
          if (STREAM_KEYS.contains(suffix)) {
            continue;
          }
          SystemFactory factory = factories.get(config.get("streams." + id + "." + S_SYSTEM));
          Set<String> allowed = factory == null ? Set.of() : factory.streamKeys();
          if (KeyValidator.allowed(suffix, allowed)) {
            continue;
          }
          List<String> candidates = KeyValidator.expand("streams." + id + ".", STREAM_KEYS);
          candidates.addAll(KeyValidator.expand("streams." + id + ".", allowed));
          throw KeyValidator.unknown(key, config.asMap().get(key), config.source(), candidates);
        }
      }
      throw KeyValidator.unknown(key, config.asMap().get(key), config.source(), known);
    }
  }
}
