package io.millrace.kafka.coordinate;

import io.millrace.kafka.settings.KafkaCoordinatorSettings;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.coordinator.ContainerMembership;
import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.spi.coordinator.MembershipListener;
import io.millrace.kafka.settings.KafkaSettings;
import io.millrace.kafka.checkpoint.GroupCheckpointStore;
import io.millrace.kafka.checkpoint.KafkaCheckpointStore;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code job.coordinator=kafka}: the process's side of the job's Kafka consumer group. Every
 * process started with the same {@code job.name} (group id) joins with one member per container;
 * {@link TaskAssignor} shares the tasks among them. Kafka's group protocol is the only coordinator:
 * no leader of Millrace's, no other service.
 */
final class KafkaCoordinator implements JobCoordinator {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaCoordinator.class);
  private final CoordinatorContext context;
  private final KafkaSettings settings;
  private final KafkaCoordinatorSettings own;
  private final String processId = UUID.randomUUID().toString();
  private final String host;
  private final List<String> inputTopics = new ArrayList<>();
  private final Map<Integer, KafkaMembership> memberships = new java.util.concurrent.ConcurrentHashMap<>();
  private final GroupCheckpointStore checkpoints;
  private final StatusTopic statusTopic;
  private final long startedMs = System.currentTimeMillis();
  /** When the status was last written (ms), so that each process refreshes it now and then. */
  private volatile long statusWrittenMs;
  private Admin admin;

  KafkaCoordinator(CoordinatorContext context, KafkaSettings settings,
      KafkaCoordinatorSettings own) {
    this.context = context;
    this.settings = settings;
    this.own = own;
    for (CoordinatorContext.Input input : context.inputs()) {
      if (!inputTopics.contains(input.physicalName())) {
        inputTopics.add(input.physicalName());
      }
    }
    String name;
    try {
      name = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      name = "unknown-host";
    }
    this.host = name;
    Map<String, String> streamOfTopic = new HashMap<>();
    Map<String, Integer> partitionsOfTopic = new HashMap<>();
    for (CoordinatorContext.Input input : context.inputs()) {
      streamOfTopic.put(input.physicalName(), input.streamId());
      partitionsOfTopic.put(input.physicalName(), input.partitions());
    }
    this.statusTopic = new StatusTopic(settings, own.groupId());
    this.checkpoints = new GroupCheckpointStore(settings, own.groupId(), streamOfTopic,
        partitionsOfTopic, containerId -> membership(containerId).groupMetadata(),
        containerId -> KafkaCoordinatorSettings.transactionalId(context.jobConfig(),
            settings.system(), containerId), legacyCheckpoints(context),
        context::changelogPartitionOf);
  }

  /**
   * The job's checkpoint topic, when {@code task.checkpoint.system} names a Kafka system: where a
   * job that ran with {@code job.coordinator=local} kept its place.
   */
  private static java.util.function.Supplier<KafkaCheckpointStore> legacyCheckpoints(
      CoordinatorContext context) {
    String system = context.jobConfig().get("task.checkpoint.system");
    if (system == null || !KafkaCoordinatorFactory.isKafka(context.jobConfig(), system)) {
      return null;
    }
    String prefix = "systems." + system + ".";
    Map<String, String> systemConfig = new java.util.TreeMap<>();
    context.jobConfig().forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        systemConfig.put(k.substring(prefix.length()), v);
      }
    });
    return () -> new KafkaCheckpointStore(KafkaSettings.of(system, systemConfig),
        context.jobName());
  }

  private KafkaMembership membership(int containerId) {
    KafkaMembership m = memberships.get(containerId);
    if (m == null) {
      throw new IllegalStateException("container " + containerId + " has not joined group "
          + groupId());
    }
    return m;
  }

  @Override
  public java.util.Optional<CheckpointStore> checkpoints() {
    return java.util.Optional.of(checkpoints);
  }

  @Override
  public ContainerMembership join(int containerId, MembershipListener listener) {
    if (containerId < 0 || containerId >= context.containerCount()) {
      // The group would place tasks on a container the process does not say it has.
      throw new IllegalArgumentException("container " + containerId + " is not one of this "
          + "process's " + context.containerCount() + " containers (job.container.count)");
    }
    KafkaMembership membership = new KafkaMembership(this, containerId, listener);
    membership.start();
    memberships.put(containerId, membership);
    return membership;
  }

  /** The member consumer's properties: the system's client settings, then the group's. */
  Properties memberProperties(int containerId, KafkaMembership membership) {
    Properties p = settings.consumerProperties(memberClientId(context.jobName(), processLabel(),
        containerId));
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId());
    // Millrace's assignor runs in the client: the classic protocol (the newer one assigns on the
    // broker and refuses client assignors; docs/decisions.md says why this choice).
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    p.remove(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);
    p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, TaskAssignor.class.getName());
    p.put(TaskAssignor.MEMBERSHIP, membership);
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(own.sessionTimeoutMs()));
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Long.toString(own.heartbeatIntervalMs()));
    p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, Long.toString(own.rebalanceTimeoutMs()));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"); // it never fetches
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    if (!own.instanceId().isEmpty()) {
      p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, own.instanceId() + "-" + containerId);
    }
    return p;
  }

  /**
   * A member's client id, which names its process so that the group's description (Kafka's
   * tools, {@code bin/millrace status}) tells processes apart: {@code
   * millrace-<job>-<process>-c<container>}.
   */
  static String memberClientId(String job, String process, int containerId) {
    return "millrace-" + job + "-" + process + "-c" + containerId;
  }

  /** The process as members' client ids name it: its instance id, or host and pid. */
  String processLabel() {
    return KafkaCoordinatorSettings.processLabel(context.jobConfig());
  }

  String groupId() {
    return own.groupId();
  }

  String instanceId() {
    return own.instanceId();
  }

  String processId() {
    return processId;
  }

  String host() {
    return host;
  }

  int containerCount() {
    return context.containerCount();
  }

  int taskCount() {
    return context.taskCount();
  }

  /**
   * {@code job.standby.replicas}: how many other processes keep a copy of each task's stores
   * (none for a job without changelogs: there is nothing to copy).
   */
  int standbyReplicas() {
    if (context.changelogs().isEmpty()) {
      return 0;
    }
    return Integer.parseInt(context.jobConfig().getOrDefault("job.standby.replicas", "0").trim());
  }

  /**
   * When a stateful task's move waits for a warm-up copy: {@code job.acceptable.recovery.lag}
   * and {@code job.max.warmup.replicas}; a job without changelogs moves tasks at once.
   */
  TaskPlacement.Warmups warmups() {
    if (context.changelogs().isEmpty()) {
      return TaskPlacement.Warmups.NONE;
    }
    Map<String, String> c = context.jobConfig();
    return new TaskPlacement.Warmups(
        Long.parseLong(c.getOrDefault("job.acceptable.recovery.lag", "10000").trim()),
        Integer.parseInt(c.getOrDefault("job.max.warmup.replicas", "2").trim()));
  }

  /** {@code job.rack}, or "". */
  String rack() {
    return context.jobConfig().getOrDefault("job.rack", "").trim();
  }

  List<String> inputTopics() {
    return inputTopics;
  }

  long joinTimeoutMs() {
    return own.joinTimeoutMs();
  }

  long pollIntervalNanos() {
    return TimeUnit.MILLISECONDS.toNanos(own.pollIntervalMs());
  }

  /** Where the group lives, for messages: the system and its servers. */
  String where() {
    return "Kafka system '" + settings.system() + "' at " + settings.bootstrapServers();
  }

  /**
   * How many changelog records each process would restore for each task: the changelogs' end
   * offsets (asked now, once per rebalance, by the group's leader) less what the process's local
   * files hold. A job without changelogs costs nothing anywhere.
   */
  TaskPlacement.RestoreCost restoreCost(int tasks, Collection<MemberInfo> members) {
    List<CoordinatorContext.Changelog> changelogs = context.changelogs();
    if (changelogs.isEmpty() || tasks == 0) {
      return (task, process) -> 0;
    }
    Map<String, long[]> ends = new HashMap<>();
    try {
      Map<TopicPartition, OffsetSpec> wanted = new HashMap<>();
      for (CoordinatorContext.Changelog c : changelogs) {
        for (int t = 0; t < tasks; t++) {
          wanted.put(new TopicPartition(c.physicalName(), context.changelogPartitionOf(t)),
              OffsetSpec.latest());
        }
      }
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets = admin()
          .listOffsets(wanted).all().get(settings.startupTimeoutMs(), TimeUnit.MILLISECONDS);
      for (CoordinatorContext.Changelog c : changelogs) {
        long[] end = new long[tasks];
        for (int t = 0; t < tasks; t++) { // per task, from its changelog partition
          var info = offsets.get(new TopicPartition(c.physicalName(),
              context.changelogPartitionOf(t)));
          end[t] = info == null ? 0 : info.offset();
        }
        ends.put(c.store(), end);
      }
    } catch (Exception e) {
      // Without the ends, placement is balanced and sticky but not state-aware this round.
      LOG.warn("group {}: cannot read the changelogs' end offsets ({}); placing tasks without "
          + "regard to local state this time", groupId(), e.toString());
      return (task, process) -> 0;
    }
    Map<String, Map<Integer, Map<String, Long>>> byProcess = new HashMap<>();
    for (MemberInfo m : members) {
      byProcess.putIfAbsent(m.processId(), m.localState());
    }
    return (task, process) -> {
      Map<String, Long> local = byProcess.getOrDefault(process, Map.of()).get(task);
      long cost = 0;
      for (Map.Entry<String, long[]> store : ends.entrySet()) {
        long end = store.getValue()[task];
        Long held = local == null ? null : local.get(store.getKey());
        cost += held == null ? end : Math.max(0, end - held - 1);
      }
      return cost;
    };
  }

  private synchronized Admin admin() {
    if (admin == null) {
      admin = Admin.create(settings.adminProperties("millrace-" + context.jobName()
          + "-coordinator-admin"));
    }
    return admin;
  }

  /** A container's tasks changed: the process's status is written again. */
  synchronized void statusChanged() {
    Map<Integer, ProcessStatus.Container> containers = new java.util.TreeMap<>();
    memberships.forEach((id, m) -> containers.put(id, m.status()));
    long now = System.currentTimeMillis();
    statusTopic.write(processLabel(), new ProcessStatus(processLabel(), host,
        ProcessHandle.current().pid(), startedMs, now, containers).encode());
    statusWrittenMs = now;
  }

  /** Writes the status again if it is older than the refresh interval (any container's poll). */
  void refreshStatus() {
    if (statusWrittenMs > 0
        && System.currentTimeMillis() - statusWrittenMs > STATUS_REFRESH_MS) {
      statusChanged();
    }
  }

  /** How often each process writes its status even when nothing changed: it says it is alive. */
  static final long STATUS_REFRESH_MS = 10_000;

  @Override
  public synchronized void close() {
    statusTopic.write(processLabel(), null); // the process has left: no status of it remains
    statusTopic.close();
    checkpoints.close();
    if (admin != null) {
      admin.close();
      admin = null;
    }
  }
}
