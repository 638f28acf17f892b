package io.millrace.kafka.coordinate;

import io.millrace.kafka.settings.KafkaCoordinatorSettings;
import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.kafka.settings.KafkaSettings;
import io.millrace.kafka.checkpoint.GroupCheckpointStore;
import java.io.PrintStream;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code bin/millrace status} for a job under {@code job.coordinator=kafka}: the group's members
 * by process and container, each one's tasks and last rebalance (from the job's status topic),
 * each task's input lag (end offsets against the group's committed offsets) and how far each
 * store's changelog runs past the checkpoint, and its whole length (what a new owner without
 * local files restores).
 */
final class GroupStatus {
  private final CoordinatorContext context;
  private final KafkaSettings settings;
  private final KafkaCoordinatorSettings own;

  GroupStatus(CoordinatorContext context, KafkaSettings settings, KafkaCoordinatorSettings own) {
    this.context = context;
    this.settings = settings;
    this.own = own;
  }

  void print(PrintStream out) throws Exception {
    long timeout = settings.startupTimeoutMs();
    String group = own.groupId();
    try (Admin admin = Admin.create(settings.adminProperties("millrace-status"))) {
      ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all()
          .get(timeout, TimeUnit.MILLISECONDS).get(group);
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata().get(timeout, TimeUnit.MILLISECONDS);
      Map<TopicPartition, Long> ends = ends(admin, timeout);
      Map<String, ProcessStatus> statuses;
      try (StatusTopic topic = new StatusTopic(settings, group)) {
        statuses = topic.read();
      }

      // Members by process label (their client ids name it) and container.
      Map<String, Map<Integer, Set<Integer>>> byProcess = new TreeMap<>();
      Map<Integer, String> ownerOf = new TreeMap<>();
      String prefix = "millrace-" + context.jobName() + "-";
      for (MemberDescription m : description.members()) {
        String client = m.clientId();
        String label = client;
        int container = -1;
        int c = client.lastIndexOf("-c");
        if (client.startsWith(prefix) && c > prefix.length()) {
          label = client.substring(prefix.length(), c);
          container = Integer.parseInt(client.substring(c + 2));
        }
        Set<Integer> tasks = new TreeSet<>();
        m.assignment().topicPartitions().forEach(tp -> tasks.add(tp.partition()));
        byProcess.computeIfAbsent(label, l -> new TreeMap<>()).put(container, tasks);
        for (int t : tasks) {
          ownerOf.put(t, label + "/c" + container);
        }
      }
      out.printf("job %s: group %s on Kafka system '%s' at %s: %s, %d member(s) in %d "
              + "process(es), %d task(s)%n", context.jobName(), group, settings.system(),
          settings.bootstrapServers(), description.groupState(), description.members().size(),
          byProcess.size(), context.taskCount());
      long now = System.currentTimeMillis();
      for (Map.Entry<String, Map<Integer, Set<Integer>>> p : byProcess.entrySet()) {
        ProcessStatus status = statuses.get(p.getKey());
        out.println();
        if (status == null) {
          out.printf("process %s (no status written yet)%n", p.getKey());
        } else {
          out.printf("process %s (host %s, pid %d, up %s, status written %s ago)%n", p.getKey(),
              status.host(), status.pid(), duration(now - status.startedMs()),
              duration(now - status.updatedMs()));
        }
        for (Map.Entry<Integer, Set<Integer>> c : p.getValue().entrySet()) {
          out.printf("  container %d: tasks %s%n", c.getKey(), ProcessStatus.list(c.getValue()));
          ProcessStatus.Container mine = status == null ? null
              : status.containers().get(c.getKey());
          if (mine != null && mine.rebalanceStartMs() > 0) {
            out.printf("    last rebalance %s (%s ago): took %s, gave up %s, lost %s; waited %d ms "
                    + "for the group, revoked in %d ms, took its tasks in %d ms%n",
                LocalTime.ofInstant(Instant.ofEpochMilli(mine.rebalanceStartMs()),
                    ZoneId.systemDefault()).format(java.time.format.DateTimeFormatter.ofPattern(
                        "HH:mm:ss")),
                duration(now - mine.rebalanceStartMs()), ProcessStatus.list(mine.added()),
                ProcessStatus.list(mine.revoked()), ProcessStatus.list(mine.lost()),
                mine.joinMs(), mine.revokeMs(), mine.assignMs());
          }
          if (mine != null && !mine.standbys().isEmpty()) {
            List<String> copies = new ArrayList<>();
            mine.standbys().forEach((t, lag) -> copies.add(t + " (" + (lag < 0 ? "opening"
                : lag + " behind") + ")"));
            out.printf("    standby copies: %s%n", String.join(", ", copies));
          }
        }
      }
      out.println();
      out.println("task  owner                       input lag (records)      changelog records beyond "
          + "the checkpoint (of all: a restore without local files)");
      for (int t = 0; t < context.taskCount(); t++) {
        List<String> lags = new ArrayList<>();
        Map<String, Long> logged = new TreeMap<>();
        for (CoordinatorContext.Input in : context.inputs()) {
          TopicPartition tp = new TopicPartition(in.physicalName(), t);
          OffsetAndMetadata om = committed.get(tp);
          Long end = ends.get(tp);
          // Nothing committed yet: the task starts from the log's start, so all of it is behind.
          lags.add(in.streamId() + "/" + t + " " + (end == null ? "?" : om == null
              ? end + " (no checkpoint)" : Long.toString(Math.max(0, end - om.offset()))));
          if (om != null) {
            logged.putAll(GroupCheckpointStore.changelogOffsets(om.metadata()));
          }
        }
        List<String> stores = new ArrayList<>();
        for (CoordinatorContext.Changelog c : context.changelogs()) {
          Long end = ends.get(new TopicPartition(c.physicalName(),
              context.changelogPartitionOf(t)));
          Long at = logged.get(c.store());
          // The checkpoint's own transaction ends with a commit marker, which takes an offset.
          stores.add(c.store() + " " + (end == null ? "?" : at == null ? end + " (no checkpoint)"
              : Math.max(0, end - at - 2) + " (of " + end + ")"));
        }
        out.printf("%4d  %-27s %-24s %s%n", t, ownerOf.getOrDefault(t, "(none)"),
            String.join(", ", lags), stores.isEmpty() ? "-" : String.join(", ", stores));
      }
    }
  }

  private Map<TopicPartition, Long> ends(Admin admin, long timeout) throws Exception {
    Map<TopicPartition, OffsetSpec> wanted = new HashMap<>();
    for (CoordinatorContext.Input in : context.inputs()) {
      for (int p = 0; p < in.partitions(); p++) {
        wanted.put(new TopicPartition(in.physicalName(), p), OffsetSpec.latest());
      }
    }
    for (CoordinatorContext.Changelog c : context.changelogs()) {
      for (int p = 0; p < context.taskCount(); p++) {
        wanted.put(new TopicPartition(c.physicalName(), p), OffsetSpec.latest());
      }
    }
    Map<TopicPartition, Long> ends = new HashMap<>();
    admin.listOffsets(wanted, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
        .get(timeout, TimeUnit.MILLISECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
    return ends;
  }

  private static String duration(long ms) {
    long s = Math.max(0, ms) / 1000;
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return s / 60 + " min " + s % 60 + " s";
    }
    return s / 3600 + " h " + s % 3600 / 60 + " min";
  }
}
