package io.millrace.bench.scaleout;

import io.millrace.core.cli.Main;
import io.millrace.kafka.coordinate.ProcessStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The job on Millrace: {@code bin/millrace run job.properties} per process, under {@code
 * job.coordinator=kafka} with the benchmark's session timeout and every other setting Millrace's
 * default. The failover's parts come from the job's status topic, where each process writes its
 * last rebalance (what {@code bin/millrace status} prints).
 */
final class MillraceFleet extends Fleet {
  /** ChangelogRestorer's line at the end of each restore. */
  private static final Pattern RESTORED =
      Pattern.compile("restored \\d+ store partition\\(s\\) from system '[^']*': "
          + "(\\d+) records in");
  private final String classpath;
  private final List<String> jvm;
  private final Map<String, String> extra;

  MillraceFleet(JobSpec job, Path dir, String classpath, List<String> jvm,
      Map<String, String> extra) {
    super(job, dir);
    this.classpath = classpath;
    this.jvm = jvm;
    this.extra = extra;
  }

  @Override
  String system() {
    return "millrace";
  }

  /** The job's properties, as a user would write them. */
  Map<String, String> config(Path home) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("job.name", job.group());
    c.put("job.state.dir", home.resolve("state").toString());
    c.put("job.coordinator", "kafka");
    c.put("job.coordinator.session.timeout.ms", Long.toString(job.sessionMs()));
    if (job.exactlyOnce()) {
      c.put("task.processing.guarantee", "exactly-once");
    }
    if (job.standbys() > 0) {
      c.put("job.standby.replicas", Integer.toString(job.standbys()));
    }
    c.put("task.class", (job.count() ? ScaleOutCountTask.class : ScaleOutPassTask.class)
        .getName());
    c.put("task.inputs", "in");
    c.put("task.outputs", "out");
    c.put("systems.kafka.bootstrap.servers", job.bootstrap());
    for (String s : List.of("in", "out")) {
      c.put("streams." + s + ".system", "kafka");
      c.put("streams." + s + ".physical.name", s.equals("in") ? job.in() : job.out());
      c.put("streams." + s + ".key.serde", "bytes");
      c.put("streams." + s + ".value.serde", "bytes");
    }
    if (job.count()) {
      c.put("stores.counts.factory", "rocksdb");
      c.put("stores.counts.key.serde", "bytes");
      c.put("stores.counts.value.serde", "long");
      c.put("stores.counts.changelog", "kafka." + job.group() + "-counts-changelog");
    }
    c.putAll(extra);
    return c;
  }

  @Override
  List<String> command(String label, Path home) throws IOException {
    StringBuilder text = new StringBuilder();
    config(home).forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Path properties = Files.writeString(home.resolve("job.properties"), text);
    List<String> command = new ArrayList<>();
    command.add(java());
    command.addAll(jvm);
    command.addAll(List.of("-cp", classpath, Main.class.getName(), "run",
        properties.toString()));
    return command;
  }

  @Override
  Phases phases(long killMs, Set<Integer> moved, Collection<String> survivors) {
    Set<Long> pids = survivors.stream().map(this::pid).collect(Collectors.toSet());
    long detect = Long.MAX_VALUE;
    long assigned = 0;
    long ready = 0;
    for (ProcessStatus s : statuses().values()) {
      if (!pids.contains(s.pid())) {
        continue;
      }
      for (ProcessStatus.Container c : s.containers().values()) {
        if (c.rebalanceStartMs() < killMs) {
          continue;
        }
        detect = Math.min(detect, c.rebalanceStartMs());
        if (c.added().stream().anyMatch(moved::contains)) {
          long got = c.rebalanceStartMs() + c.revokeMs() + c.joinMs();
          assigned = Math.max(assigned, got);
          ready = Math.max(ready, got + c.assignMs());
        }
      }
    }
    if (detect == Long.MAX_VALUE || assigned == 0) {
      return Phases.UNKNOWN; // a later rebalance overwrote the one that moved the tasks
    }
    return new Phases(detect - killMs, assigned - detect, ready - assigned);
  }

  /**
   * From the process's status record: its containers' rebalances since {@code sinceMs}, each
   * ready at its start plus its revoke, join and assignment (a container with no other task
   * restores inline, inside its assignment); the records restored from its log's "restored ...
   * records in ... ms" lines.
   */
  @Override
  Readiness readiness(String label, long sinceMs) throws IOException {
    long pid = pid(label);
    long readyAt = 0;
    long assign = 0;
    for (ProcessStatus s : statuses().values()) {
      if (s.pid() != pid) {
        continue;
      }
      for (ProcessStatus.Container c : s.containers().values()) {
        if (c.rebalanceStartMs() >= sinceMs) {
          readyAt = Math.max(readyAt,
              c.rebalanceStartMs() + c.revokeMs() + c.joinMs() + c.assignMs());
          assign = Math.max(assign, c.assignMs());
        }
      }
    }
    long restored = 0;
    for (String line : Files.readAllLines(dir.resolve(label).resolve("out.log"))) {
      Matcher m = RESTORED.matcher(line);
      if (m.find()) {
        restored += Long.parseLong(m.group(1));
      }
    }
    return new Readiness(readyAt, assign, restored);
  }

  /** Every process's latest status record. */
  private Map<String, ProcessStatus> statuses() {
    Properties p = new Properties();
    p.put("bootstrap.servers", job.bootstrap());
    p.put("enable.auto.commit", "false");
    Map<String, ProcessStatus> latest = new HashMap<>();
    TopicPartition tp = new TopicPartition(ProcessStatus.topicOf(job.group()), 0);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p,
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (consumer.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          String key = new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
          if (r.value() == null) {
            latest.remove(key);
          } else {
            latest.put(key, ProcessStatus.decode(r.value()));
          }
        }
      }
    }
    return latest;
  }
}
