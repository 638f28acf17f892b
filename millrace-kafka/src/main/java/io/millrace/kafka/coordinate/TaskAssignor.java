package io.millrace.kafka.coordinate;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Millrace's assignor for Kafka's classic consumer-group protocol, cooperative (KIP-429): each
 * member is one container; it assigns whole tasks (partition k of every input topic together),
 * by {@link TaskPlacement}. The group leader runs it; every member sends, in its subscription,
 * its process and what that process holds on local disk ({@link MemberInfo}).
 *
 * <p>Each member's standby and warm-up copies travel in its assignment's user data: {@code short
 * version (2), int count, int task... (standby copies), int count, int task... (warm-ups)}; a
 * member that reads none keeps none, and one that reads version 1 (standbys only) keeps no
 * warm-up.
 *
 * <p>The consumer creates it from {@code partition.assignment.strategy} and hands it the
 * membership it serves through {@link #configure}, under {@link #MEMBERSHIP}.
 */
public final class TaskAssignor implements ConsumerPartitionAssignor, Configurable {
  /** The consumer setting that carries the {@link KafkaMembership} to its assignor. */
  static final String MEMBERSHIP = "millrace.membership";
  private static final Logger LOG = LoggerFactory.getLogger(TaskAssignor.class);
  private KafkaMembership membership;

  @Override
  public void configure(Map<String, ?> configs) {
    Object value = configs.get(MEMBERSHIP);
    if (!(value instanceof KafkaMembership m)) {
      throw new IllegalArgumentException(TaskAssignor.class.getName() + " is Millrace's own "
          + "assignor: it runs only inside a Millrace job (job.coordinator=kafka)");
    }
    this.membership = m;
  }

  @Override
  public String name() {
    return "millrace-tasks";
  }

  @Override
  public List<RebalanceProtocol> supportedProtocols() {
    return List.of(RebalanceProtocol.COOPERATIVE);
  }

  @Override
  public ByteBuffer subscriptionUserData(Set<String> topics) {
    // The consumer asks for this as it sends its JoinGroup: a rebalance begins for this member.
    membership.rebalanceStarted();
    return membership.memberInfo().encode();
  }

  @Override
  public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
    List<String> topics = membership.inputTopics();
    int tasks = membership.taskCount();
    for (String topic : topics) {
      Integer count = metadata.partitionCountForTopic(topic);
      if (count == null || count != tasks) {
        // Task k reads partition k of every input; tasks are fixed when the job starts.
        LOG.warn("group {}: input topic {} has {} partitions, the job started with {} tasks: "
            + "only those are assigned (restart every process of the job to take a change of "
            + "partition count)", membership.groupId(), topic, count, tasks);
      }
    }
    Map<String, Subscription> subscriptions = groupSubscription.groupSubscription();
    List<TaskPlacement.Member> members = new ArrayList<>();
    Map<String, MemberInfo> infos = new HashMap<>();
    Map<String, String> racks = new HashMap<>();
    for (Map.Entry<String, Subscription> entry : subscriptions.entrySet()) {
      Subscription s = entry.getValue();
      MemberInfo info;
      try {
        info = MemberInfo.decode(entry.getKey(), s.userData());
      } catch (IllegalArgumentException e) {
        // An older or foreign member: placed as a process of its own with no local state, so
        // one odd member cannot stop the group's leader (and the next one) from assigning.
        LOG.warn("group {}: {}", membership.groupId(), e.getMessage());
        info = new MemberInfo(entry.getKey(), "unknown", "", 0, 1, Map.of(), "");
      }
      infos.put(entry.getKey(), info);
      racks.put(info.processId(), info.rack());
      Set<Integer> owned = new TreeSet<>();
      for (TopicPartition tp : s.ownedPartitions()) {
        if (topics.contains(tp.topic())) {
          owned.add(tp.partition());
        }
      }
      members.add(new TaskPlacement.Member(entry.getKey(), info.processId(), info.containerId(),
          owned, s.generationId().orElse(-1)));
    }
    TaskPlacement.RestoreCost cost = membership.restoreCost(tasks, infos.values());
    TaskPlacement.Placement placement = TaskPlacement.place(tasks, members, cost,
        membership.standbyReplicas(), racks, membership.warmups());
    Map<String, Set<Integer>> placed = placement.active();
    Map<String, Assignment> assignments = new HashMap<>();
    for (Map.Entry<String, Set<Integer>> member : placed.entrySet()) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int t : member.getValue()) {
        for (String topic : topics) {
          Integer count = metadata.partitionCountForTopic(topic);
          if (count != null && t < count) {
            partitions.add(new TopicPartition(topic, t));
          }
        }
      }
      assignments.put(member.getKey(), new Assignment(partitions, encodeCopies(
          placement.standby().getOrDefault(member.getKey(), Set.of()),
          placement.warmup().getOrDefault(member.getKey(), Set.of()))));
    }
    LOG.info("group {}: {} tasks over {} container(s) in {} process(es): {}",
        membership.groupId(), tasks, members.size(),
        infos.values().stream().map(MemberInfo::processId).distinct().count(),
        describe(placed, infos));
    if (membership.standbyReplicas() > 0) {
      LOG.info("group {}: standby copies: {}", membership.groupId(),
          describe(placement.standby(), infos));
    }
    if (placement.warmup().values().stream().anyMatch(w -> !w.isEmpty())) {
      LOG.info("group {}: tasks stay where they run while copies warm up where they will go: {}",
          membership.groupId(), describe(placement.warmup(), infos));
    }
    return new GroupAssignment(assignments);
  }

  private static String describe(Map<String, Set<Integer>> placed, Map<String, MemberInfo> infos) {
    StringBuilder b = new StringBuilder();
    placed.forEach((member, tasks) -> {
      MemberInfo info = infos.get(member);
      b.append(info.host()).append('/').append(info.processId(), 0, 8).append('/')
          .append(info.containerId()).append('=').append(tasks).append(' ');
    });
    return b.toString().trim();
  }

  @Override
  public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
    // Called on the loop thread inside the member's poll, before the rebalance listener.
    Copies copies = decodeCopies(assignment.userData());
    membership.copiesAssigned(copies.standby(), copies.warmup());
  }

  /** A member's copies: standby ones, and warm-ups of tasks it is to take. */
  record Copies(Set<Integer> standby, Set<Integer> warmup) {}

  static ByteBuffer encodeCopies(Set<Integer> standby, Set<Integer> warmup) {
    ByteBuffer b = ByteBuffer.allocate(2 + 8 + 4 * (standby.size() + warmup.size()));
    b.putShort((short) 2);
    for (Set<Integer> tasks : List.of(standby, warmup)) {
      b.putInt(tasks.size());
      for (int t : tasks) {
        b.putInt(t);
      }
    }
    return b.flip();
  }

  /** A member's copies; none if the leader sent none (or data this one cannot read). */
  static Copies decodeCopies(ByteBuffer data) {
    Copies none = new Copies(Set.of(), Set.of());
    if (data == null || data.remaining() < 6) {
      return none;
    }
    ByteBuffer b = data.duplicate();
    short version = b.getShort();
    if (version < 1) {
      return none;
    }
    Set<Integer> standby = b.remaining() >= 4 ? tasks(b) : null;
    Set<Integer> warmup = version < 2 ? Set.of() : b.remaining() >= 4 ? tasks(b) : null;
    if (standby == null || warmup == null) {
      LOG.warn("group assignment: damaged copy data ({} bytes): keeping no standby copy",
          data.remaining());
      return none;
    }
    return new Copies(standby, warmup);
  }

  private static Set<Integer> tasks(ByteBuffer b) {
    int count = b.getInt();
    if (count < 0 || count > b.remaining() / 4) {
      return null;
    }
    Set<Integer> tasks = new TreeSet<>();
    for (int i = 0; i < count; i++) {
      tasks.add(b.getInt());
    }
    return tasks;
  }
}
