package io.millrace.bench.scaleout;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/** What the broker says about a job's group and topics. */
final class Group implements AutoCloseable {
  private final Admin admin;

  Group(String bootstrap) {
    this.admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
  }

  /** True when the group is stable with {@code members} members that hold every input partition. */
  boolean stable(String group, int members, String in, int partitions) throws Exception {
    ConsumerGroupDescription d;
    try {
      d = admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
    } catch (java.util.concurrent.ExecutionException e) {
      return false; // not there yet
    }
    if (d.groupState() != GroupState.STABLE || d.members().size() != members) {
      return false;
    }
    Set<Integer> held = new HashSet<>();
    for (MemberDescription m : d.members()) {
      m.assignment().topicPartitions().stream().filter(tp -> tp.topic().equals(in))
          .forEach(tp -> held.add(tp.partition()));
    }
    return held.size() == partitions;
  }

  /** The group's members, or -1 while the broker does not know the group. */
  int members(String group) throws Exception {
    try {
      return admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS)
          .get(group).members().size();
    } catch (java.util.concurrent.ExecutionException e) {
      return -1;
    }
  }

  /** Creates a topic and waits until each partition has a leader (no retries on first writes). */
  void create(String topic, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
        .get(30, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      try {
        if (admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS)
            .get(topic).partitions().stream().allMatch(p -> p.leader() != null)) {
          return;
        }
      } catch (java.util.concurrent.ExecutionException e) {
        // not known to the broker's metadata yet
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("topic " + topic + " has partitions without a leader");
  }

  /** Creates a compacted topic, as a store's changelog is, before the job would. */
  void createCompacted(String topic, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)
        .configs(Map.of("cleanup.policy", "compact")))).all().get(30, TimeUnit.SECONDS);
  }

  /** The sum of the topic's end offsets: records written (and transaction markers). */
  long written(String topic, int partitions) throws Exception {
    return written(topic, partitions, p -> true);
  }

  /** The sum of the end offsets of the topic's partitions that {@code which} accepts. */
  long written(String topic, int partitions, java.util.function.IntPredicate which)
      throws Exception {
    Map<TopicPartition, OffsetSpec> wanted = new java.util.HashMap<>();
    for (int p = 0; p < partitions; p++) {
      if (which.test(p)) {
        wanted.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
    }
    long sum = 0;
    for (ListOffsetsResult.ListOffsetsResultInfo info : admin.listOffsets(wanted).all()
        .get(10, TimeUnit.SECONDS).values()) {
      sum += info.offset();
    }
    return sum;
  }

  @Override
  public void close() {
    admin.close();
  }
}
