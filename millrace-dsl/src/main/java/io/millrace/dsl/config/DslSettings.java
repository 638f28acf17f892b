package io.millrace.dsl.config;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.config.KeyValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The DSL's own keys, all under {@code dsl.} (passed to the task by the runtime unvalidated: they
 * are checked here, by the translator, with the same kind of message).
 *
 * @param storeFactory the engine of the pipeline's stores
 * @param changelogSystem the system of their changelogs, or null for none
 * @param repartitionSystem the system of repartitions' intermediate streams
 * @param repartitionPartitions their partitions, or -1 for one per task
 * @param idleMs how long an input partition without records is waited for by the watermark
 * @param wallClockAdvance whether the watermark follows the clock once every input is idle
 * @param tickMs how often the task looks at the clock for idleness and the wall-clock advance
 */
public record DslSettings(String storeFactory, String changelogSystem, String repartitionSystem,
    int repartitionPartitions, long idleMs, boolean wallClockAdvance, long tickMs) {
  /** The key naming the application class, as users write it. */
  public static final String APP_CLASS = "app.class";
  /** The application class in a translated job. */
  public static final String TASK_APP_CLASS = "dsl.app.class";
  /** The plan's digest in a translated job, which each task checks it rebuilt. */
  public static final String PLAN_DIGEST = "dsl.plan.digest";
  public static final String STORE_FACTORY = "dsl.store.factory";
  public static final String CHANGELOG_SYSTEM = "dsl.changelog.system";
  public static final String REPARTITION_SYSTEM = "dsl.repartition.system";
  public static final String REPARTITION_PARTITIONS = "dsl.repartition.partitions";
  public static final String IDLE_MS = "dsl.watermark.idle.ms";
  public static final String WALL_CLOCK = "dsl.watermark.wallclock.advance";
  public static final String TICK_MS = "dsl.watermark.tick.ms";

  private static final Set<String> KEYS = Set.of(TASK_APP_CLASS, PLAN_DIGEST, STORE_FACTORY,
      CHANGELOG_SYSTEM, REPARTITION_SYSTEM, REPARTITION_PARTITIONS, IDLE_MS, WALL_CLOCK, TICK_MS);

  /**
   * The settings of a job, its {@code dsl.*} keys checked.
   *
   * @param defaultLogSystem the system changelogs and repartitions go to when the job does not
   *     say: the inputs' Kafka system, or null on the embedded default
   * @throws ConfigException naming an unknown key or a bad value
   */
  public static DslSettings of(JobConfig config, String defaultLogSystem) {
    List<String> known = new ArrayList<>(KEYS);
    for (Map.Entry<String, String> e : config.withPrefix("dsl.").entrySet()) {
      String key = "dsl." + e.getKey();
      if (!KEYS.contains(key)) {
        throw KeyValidator.unknown(key, e.getValue(), config.source(), known);
      }
    }
    String changelog = config.get(CHANGELOG_SYSTEM, defaultLogSystem == null ? "none"
        : defaultLogSystem);
    long tick = config.getLong(TICK_MS, 1000, 1);
    return new DslSettings(
        config.get(STORE_FACTORY, "rocksdb"),
        changelog.equals("none") ? null : changelog,
        config.get(REPARTITION_SYSTEM, defaultLogSystem == null ? "memory" : defaultLogSystem),
        config.getInt(REPARTITION_PARTITIONS, -1, 1),
        config.getLong(IDLE_MS, 30_000, 0),
        config.getBoolean(WALL_CLOCK, false),
        tick);
  }
}
