package io.millrace.kafka.settings;

import io.millrace.api.config.JobConfig;
import java.util.Map;
import java.util.Set;

/**
 * The keys of {@code job.coordinator=kafka}, after {@code job.coordinator.}: which Kafka system
 * holds the group, its id, and the group's timing.
 *
 * <p>Timing defaults are Millrace's, not the Kafka client's: a 10 s session (Kafka's 45 s would make
 * every crash cost most of a minute) and a 500 ms heartbeat (members learn of a rebalance at their
 * next heartbeat, so a clean leave or a join is noticed within half a second). Both are measured
 * in docs/benchmarks.md ({@code bench scale-out}).
 *
 * @param system the Kafka system (cluster) the group lives on
 * @param groupId the group id
 * @param instanceId {@code job.instance.id}, or "" (dynamic membership)
 * @param sessionTimeoutMs how long a silent member keeps its tasks: the failure-detection time
 * @param heartbeatIntervalMs how often members heartbeat, and so learn of a rebalance
 * @param rebalanceTimeoutMs how long a rebalance waits for a member (a long restore delays it)
 * @param joinTimeoutMs how long a container may take to join before the job fails
 * @param pollIntervalMs how often the loop polls its membership
 */
public record KafkaCoordinatorSettings(String system, String groupId, String instanceId,
    long sessionTimeoutMs, long heartbeatIntervalMs, long rebalanceTimeoutMs, long joinTimeoutMs,
    long pollIntervalMs) {
  public static final String SYSTEM = "system";
  public static final String GROUP_ID = "group.id";
  public static final String SESSION_TIMEOUT_MS = "session.timeout.ms";
  public static final String HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms";
  public static final String REBALANCE_TIMEOUT_MS = "rebalance.timeout.ms";
  public static final String JOIN_TIMEOUT_MS = "join.timeout.ms";
  public static final String POLL_INTERVAL_MS = "poll.interval.ms";
  public static final Set<String> KEYS = Set.of(SYSTEM, GROUP_ID, SESSION_TIMEOUT_MS,
      HEARTBEAT_INTERVAL_MS, REBALANCE_TIMEOUT_MS, JOIN_TIMEOUT_MS, POLL_INTERVAL_MS);
  public static final long DEFAULT_SESSION_TIMEOUT_MS = 10_000;
  public static final long DEFAULT_HEARTBEAT_INTERVAL_MS = 500;
  /**
   * The commit interval of a job coordinated by Kafka when it does not set {@code task.commit.ms}:
   * each commit ends a transaction, which makes the container's outputs visible to readers of
   * committed data (and downstream Millrace jobs), so it is a latency, not only a replay bound.
   */
  public static final long DEFAULT_COMMIT_MS = 5_000;

  /** Parses the keys; {@code system} is the inputs' Kafka system when the job does not say. */
  public static KafkaCoordinatorSettings parse(String jobName, Map<String, String> jobConfig,
      Map<String, String> own, String inputSystem) {
    JobConfig c = new JobConfig(prefix(own), "the job's configuration");
    String p = "job.coordinator.";
    long session = c.getLong(p + SESSION_TIMEOUT_MS, DEFAULT_SESSION_TIMEOUT_MS, 1);
    long heartbeat = c.getLong(p + HEARTBEAT_INTERVAL_MS, DEFAULT_HEARTBEAT_INTERVAL_MS, 1);
    if (heartbeat >= session) {
      throw c.bad(p + HEARTBEAT_INTERVAL_MS, Long.toString(heartbeat), "less than "
          + p + SESSION_TIMEOUT_MS + " (" + session + "), a third of it or less");
    }
    String instance = jobConfig.getOrDefault("job.instance.id", "").trim();
    return new KafkaCoordinatorSettings(
        c.get(p + SYSTEM, inputSystem),
        c.get(p + GROUP_ID, jobName),
        instance,
        session,
        heartbeat,
        c.getLong(p + REBALANCE_TIMEOUT_MS, 300_000, 1),
        c.getLong(p + JOIN_TIMEOUT_MS, 60_000, 1),
        c.getLong(p + POLL_INTERVAL_MS, 10, 1));
  }

  /**
   * The Kafka system whose cluster holds the job's group, or null if the job is not coordinated
   * by Kafka: {@code job.coordinator.system}, else the system of the first input.
   */
  public static String groupSystem(Map<String, String> jobConfig) {
    if (!"kafka".equals(jobConfig.get("job.coordinator"))) {
      return null;
    }
    String system = jobConfig.get("job.coordinator." + SYSTEM);
    if (system != null) {
      return system;
    }
    String inputs = jobConfig.getOrDefault("task.inputs", "");
    String first = inputs.split(",")[0].trim();
    return jobConfig.get("streams." + first + ".system");
  }

  /** The group id: {@code job.coordinator.group.id}, else the job's name. */
  public static String groupId(Map<String, String> jobConfig) {
    return jobConfig.getOrDefault("job.coordinator." + GROUP_ID, jobConfig.get("job.name"));
  }

  /** This process as ids name it: {@code job.instance.id}, or host and pid. */
  public static String processLabel(Map<String, String> jobConfig) {
    String instance = jobConfig.getOrDefault("job.instance.id", "").trim();
    if (!instance.isEmpty()) {
      return instance;
    }
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      host = "unknown-host";
    }
    return host + "-" + ProcessHandle.current().pid();
  }

  /**
   * The transactional id of a container's producer on {@code system}, or null if its sends are
   * not transactional (the job is not coordinated by Kafka, or the system is not the group's).
   * Stable for a static member, so that a restart aborts its previous incarnation's transaction
   * at once; unique for a dynamic one (a restart is a new process anyway, and two runners of a
   * job may share a JVM).
   */
  public static String transactionalId(Map<String, String> jobConfig, String system,
      int containerId) {
    if (containerId < 0 || !system.equals(groupSystem(jobConfig))) {
      return null;
    }
    String id = "millrace-" + groupId(jobConfig) + "-" + processLabel(jobConfig) + "-c"
        + containerId;
    String instance = jobConfig.getOrDefault("job.instance.id", "").trim();
    return instance.isEmpty() ? id + "-" + java.util.UUID.randomUUID().toString().substring(0, 8)
        : id;
  }

  private static Map<String, String> prefix(Map<String, String> own) {
    Map<String, String> full = new java.util.TreeMap<>();
    own.forEach((k, v) -> full.put("job.coordinator." + k, v));
    return full;
  }
}
