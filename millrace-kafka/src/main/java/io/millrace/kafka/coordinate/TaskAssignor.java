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
    for (Map.Entry<String, Subscription> entry : subscriptions.entrySet()) {
      Subscription s = entry.getValue();
      MemberInfo info;
      try {
        info = MemberInfo.decode(entry.getKey(), s.userData());
      } catch (IllegalArgumentException e) {
        // An older or foreign member: placed as a process of its own with no local state, so
        // one odd member cannot stop the group's leader (and the next one) from assigning.
        LOG.warn("group {}: {}", membership.groupId(), e.getMessage());
        info = new MemberInfo(entry.getKey(), "unknown", "", 0, 1, Map.of());
      }
      infos.put(entry.getKey(), info);
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
    Map<String, Set<Integer>> placed = TaskPlacement.place(tasks, members, cost);
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
      assignments.put(member.getKey(), new Assignment(partitions));
    }
    LOG.info("group {}: {} tasks over {} container(s) in {} process(es): {}",
        membership.groupId(), tasks, members.size(),
        infos.values().stream().map(MemberInfo::processId).distinct().count(),
        describe(placed, infos));
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
  public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {}
}
