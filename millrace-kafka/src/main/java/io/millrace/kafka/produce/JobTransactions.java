package io.millrace.kafka.produce;

import io.millrace.kafka.settings.KafkaCoordinatorSettings;
import java.util.Map;

/**
 * Which of a job's writes are transactional, and under which ids. Two cases:
 *
 * <ul>
 *   <li>{@code job.coordinator=kafka}: the group's cluster, under either guarantee (the commit's
 *       offsets are the fence against a member that lost its tasks; docs/decisions.md);
 *   <li>{@code job.coordinator=local} with {@code task.processing.guarantee=exactly-once}: the
 *       checkpoints' system, which holds every output and changelog too (the planner checks). The
 *       checkpoint records go into the container's transaction. The ids are stable, one per
 *       container, so a restarted process fences its previous incarnation (a paused zombie
 *       included) when its producers begin their transactions.
 * </ul>
 *
 * <p>Under exactly-once every Kafka input is read {@code read_committed}, on any cluster.
 */
public final class JobTransactions {
  static final String GUARANTEE = "task.processing.guarantee";

  private JobTransactions() {}

  /** Whether the job runs under {@code task.processing.guarantee=exactly-once}. */
  public static boolean exactlyOnce(Map<String, String> jobConfig) {
    return "exactly-once".equals(jobConfig.getOrDefault(GUARANTEE, "").trim());
  }

  /** The system the job writes to in transactions, or null if its writes are not transactional. */
  public static String system(Map<String, String> jobConfig) {
    String group = KafkaCoordinatorSettings.groupSystem(jobConfig);
    if (group != null) {
      return group;
    }
    return exactlyOnce(jobConfig) ? jobConfig.get("task.checkpoint.system") : null;
  }

  /** Whether the job's reads of {@code system} see only committed data. */
  public static boolean readCommitted(Map<String, String> jobConfig, String system) {
    return exactlyOnce(jobConfig) || system.equals(system(jobConfig));
  }

  /**
   * The transactional id of a container's producer on {@code system}, or null if its sends there
   * are not transactional. Under the local coordinator: {@code millrace-<job>-c<container>}, with
   * {@code job.instance.id} after the job's name when it is set.
   */
  public static String transactionalId(Map<String, String> jobConfig, String system,
      int containerId) {
    if (KafkaCoordinatorSettings.groupSystem(jobConfig) != null) {
      return KafkaCoordinatorSettings.transactionalId(jobConfig, system, containerId);
    }
    if (containerId < 0 || !system.equals(system(jobConfig))) {
      return null;
    }
    String instance = jobConfig.getOrDefault("job.instance.id", "").trim();
    return "millrace-" + jobConfig.get("job.name") + (instance.isEmpty() ? "" : "-" + instance)
        + "-c" + containerId;
  }
}
