package io.millrace.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A job run by several real processes (child JVMs) against the test broker: starting and killing
 * them, the group's view of who holds which task, input fed all along, and the output and counts
 * read back.
 */
final class ScaleOutHarness implements AutoCloseable {
  static final int KEYS = 50;
  final String bootstrap;
  final String in;
  final String out;
  final String changelog;
  final String job;
  final int partitions;
  private final Path dir;
  private final Map<String, Process> children = new TreeMap<>();
  private final Admin admin;
  private Feeder feeder;
  /** Keys every process's configuration gets on top of the job's ({@link #with}). */
  private final Map<String, String> extra = new HashMap<>();

  ScaleOutHarness(Path dir, int partitions) {
    this.bootstrap = TestBroker.shared().bootstrapServers();
    this.dir = dir;
    this.partitions = partitions;
    this.in = KafkaTestSupport.topic("scale-in");
    this.out = KafkaTestSupport.topic("scale-out");
    this.changelog = KafkaTestSupport.topic("scale-counts");
    this.job = "scale-" + in;
    TestBroker.createTopic(bootstrap, in, partitions);
    this.admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
  }

  /** The job: counts per key in RocksDB with a Kafka changelog, echoes every value. */
  Map<String, String> config(String label) {
    Map<String, String> c = KafkaTestSupport.job(bootstrap, job, CountAndEchoTask.class, in, out,
        dir.resolve(label).resolve("state").toString());
    c.put("job.coordinator", "kafka");
    c.put("job.coordinator.session.timeout.ms", "6000");
    c.put("task.commit.ms", "500");
    c.put("streams.out.partitions", Integer.toString(partitions));
    c.put("stores.counts.factory", "rocksdb");
    c.put("stores.counts.value.serde", "long");
    c.put("stores.counts.changelog", "kafka." + changelog);
    c.put("stores.rocksdb.memory.bytes", "16777216");
    c.putAll(extra);
    return c;
  }

  /** Adds {@code key=value} to every process's configuration from now on. */
  ScaleOutHarness with(String key, String value) {
    extra.put(key, value);
    return this;
  }

  /** Starts a process of the job, named {@code label} (its state and log under it). */
  Process start(String label, Map<String, String> config) throws IOException {
    Path home = Files.createDirectories(dir.resolve(label));
    Process p = KafkaTestSupport.startChild(config, home);
    children.put(label, p);
    return p;
  }

  Process start(String label) throws IOException {
    return start(label, config(label));
  }

  Process child(String label) {
    return children.get(label);
  }

  String log(String label) {
    return KafkaTestSupport.childLog(dir.resolve(label));
  }

  /** A step of a test whose failure is easier to read with the processes' logs. */
  interface Step {
    void run() throws Exception;
  }

  /**
   * Runs {@code step}; if it fails, prints every process's log first (the test's temporary
   * folder, where they are, is gone once the test ends).
   */
  void withLogsOnFailure(Step step) throws Exception {
    try {
      step.run();
    } catch (Exception | AssertionError e) {
      for (String label : children.keySet()) {
        System.err.println("---- log of process " + label + " ----\n" + log(label));
      }
      throw e;
    }
  }

  /** SIGSTOP: the process stops where it is, without knowing; {@link #resume} continues it. */
  void pause(String label) throws IOException, InterruptedException {
    signal("STOP", children.get(label));
  }

  /** SIGCONT. */
  void resume(String label) throws IOException, InterruptedException {
    signal("CONT", children.get(label));
  }

  private static void signal(String signal, Process p) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
    }
  }

  /** SIGKILL: no commit, no leave. */
  void kill(String label) throws InterruptedException {
    Process p = children.remove(label);
    p.destroyForcibly();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM: the process commits and leaves; waits for it to exit. */
  void stop(String label) throws InterruptedException {
    Process p = children.remove(label);
    long t0 = System.nanoTime();
    p.destroy();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      throw new AssertionError(label + " did not stop within 60 s: " + log(label));
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    if (ms > 10_000) {
      throw new AssertionError(label + " took " + ms + " ms to stop cleanly: " + log(label));
    }
  }

  /**
   * Who holds which task now, by process: from the group's description, whose members' client
   * ids name their process (host and pid, or instance id).
   */
  Map<String, Set<Integer>> assignment() {
    Map<Long, String> byPid = new HashMap<>();
    children.forEach((label, p) -> byPid.put(p.pid(), label));
    Map<String, Set<Integer>> held = new TreeMap<>();
    ConsumerGroupDescription group;
    try {
      group = admin.describeConsumerGroups(List.of(job)).all().get(10, TimeUnit.SECONDS).get(job);
    } catch (Exception e) {
      return held;
    }
    for (MemberDescription m : group.members()) {
      String label = labelOf(m.clientId(), byPid);
      Set<Integer> tasks = held.computeIfAbsent(label, l -> new TreeSet<>());
      for (TopicPartition tp : m.assignment().topicPartitions()) {
        tasks.add(tp.partition());
      }
    }
    return held;
  }

  private String labelOf(String clientId, Map<Long, String> byPid) {
    for (Map.Entry<Long, String> e : byPid.entrySet()) {
      if (clientId.contains("-" + e.getKey() + "-c")) {
        return e.getValue();
      }
    }
    for (String label : children.keySet()) {
      if (clientId.contains("-" + label + "-c")) {
        return label; // a static member: its instance id is its label
      }
    }
    return clientId;
  }

  /**
   * Every live process's latest status record (what {@code bin/millrace status} prints), by the
   * label the test gave it.
   */
  Map<String, io.millrace.kafka.coordinate.ProcessStatus> statuses() {
    Map<Long, String> byPid = new HashMap<>();
    children.forEach((label, p) -> byPid.put(p.pid(), label));
    Map<String, io.millrace.kafka.coordinate.ProcessStatus> latest = new TreeMap<>();
    TopicPartition tp = new TopicPartition(
        io.millrace.kafka.coordinate.ProcessStatus.topicOf(job), 0);
    try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
        Map.of("bootstrap.servers", bootstrap, "enable.auto.commit", "false"),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (consumer.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value() == null) {
            continue;
          }
          var status = io.millrace.kafka.coordinate.ProcessStatus.decode(r.value());
          String label = byPid.get(status.pid());
          if (label != null) {
            latest.put(label, status);
          }
        }
      }
    }
    return latest;
  }

  /** The standby copies a process keeps, by task, with their lag, from its latest status. */
  Map<Integer, Long> standbys(String label) {
    var status = statuses().get(label);
    Map<Integer, Long> copies = new TreeMap<>();
    if (status != null) {
      status.containers().values().forEach(c -> copies.putAll(c.standbys()));
    }
    return copies;
  }

  /** The directory of a process's store {@code store} for task {@code task}. */
  Path storeDir(String label, String store, int task) {
    return dir.resolve(label).resolve("state").resolve("stores").resolve(store)
        .resolve("task-" + task);
  }

  /** The end offset of each partition of the changelog now. */
  long[] changelogEnds() {
    Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(changelog, p),
          org.apache.kafka.clients.admin.OffsetSpec.latest());
    }
    long[] ends = new long[partitions];
    try {
      admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends[tp.partition()] = info.offset());
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the changelog's end offsets: " + e, e);
    }
    return ends;
  }

  /** Waits until the live processes hold these many tasks each (in any order of processes). */
  void awaitCounts(String what, Integer... counts) throws InterruptedException {
    List<Integer> wanted = new ArrayList<>(List.of(counts));
    wanted.sort(null);
    KafkaTestSupport.await(Duration.ofSeconds(120), what, () -> {
      children.forEach((label, p) -> {
        if (!p.isAlive()) {
          throw new AssertionError(label + " died: " + log(label));
        }
      });
      List<Integer> now = new ArrayList<>();
      Set<Integer> all = new TreeSet<>();
      assignment().values().forEach(t -> {
        now.add(t.size());
        all.addAll(t);
      });
      now.sort(null);
      return now.equals(wanted) && all.size() == partitions;
    });
  }

  /** Starts writing records to every partition, a few hundred per second, until stopped. */
  void feed() {
    feeder = new Feeder();
    feeder.start();
  }

  /** Stops feeding; returns how many records each partition got. */
  long[] stopFeeding() throws InterruptedException {
    feeder.running.set(false);
    feeder.join(30_000);
    long[] sent = new long[partitions];
    for (int p = 0; p < partitions; p++) {
      sent[p] = feeder.sent.get(p);
    }
    return sent;
  }

  /** How many records the feeder has written so far, all partitions together. */
  long sentTotal() {
    long total = 0;
    for (int p = 0; p < partitions; p++) {
      total += feeder.sent.get(p);
    }
    return total;
  }

  /** Writes {@code n} more records to every partition, now. */
  void feedNow(int n) {
    Feeder once = feeder == null ? new Feeder() : feeder;
    once.writeRound(n);
  }

  /** Waits until every partition's checkpoint has moved {@code by} records past {@code from}. */
  void awaitProgress(long[] from, long by) throws InterruptedException {
    KafkaTestSupport.await(Duration.ofSeconds(120), "every task making progress", () -> {
      long[] now = checkpointed();
      for (int p = 0; p < now.length; p++) {
        if (now[p] < from[p] + by) {
          return false;
        }
      }
      return true;
    }, this::threadDumps);
  }

  /** Where each live child's thread dump went: what a stalled job was waiting on. */
  private String threadDumps() {
    StringBuilder found = new StringBuilder();
    children.forEach((label, p) -> found.append(found.length() == 0 ? "" : "; ").append(label)
        .append(": ").append(KafkaTestSupport.threadDump(p, dir.resolve(label))));
    return found.toString();
  }

  /** Waits until the job's checkpoints say every record sent was processed. */
  void awaitProcessed(long[] sent) throws InterruptedException {
    KafkaTestSupport.await(Duration.ofSeconds(120), "every record processed", () -> {
      long[] done = checkpointed();
      for (int p = 0; p < partitions; p++) {
        if (sent[p] > 0 && done[p] < sent[p] - 1) {
          return false;
        }
      }
      return true;
    });
  }

  /**
   * The checkpointed input offset of each partition now (-1 if none): the group's committed
   * offsets (the next offset to read, so one more than the checkpoint).
   */
  long[] checkpointed() {
    long[] offsets = new long[partitions];
    java.util.Arrays.fill(offsets, -1);
    try {
      Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed = admin
          .listConsumerGroupOffsets(job).partitionsToOffsetAndMetadata()
          .get(10, TimeUnit.SECONDS);
      committed.forEach((tp, om) -> {
        if (tp.topic().equals(in) && om != null) {
          offsets[tp.partition()] = om.offset() - 1;
        }
      });
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the group's offsets: " + e, e);
    }
    return offsets;
  }

  /** The key of the record at {@code offset} of partition {@code p}, as the feeder wrote it. */
  static String keyOf(int p, long offset) {
    return "k" + ((offset * 7 + p) % KEYS);
  }

  /**
   * The final count of each key in each task ({@code <task>/<key>}): each task counts in its own
   * store, whose changelog partition is the task's number; the last record of a key wins.
   */
  Map<String, Long> counts() {
    awaitNoOpenTransactions(changelog);
    Map<String, Long> counts = new TreeMap<>();
    for (ConsumerRecord<String, Long> r : KafkaTestSupport.readLongs(bootstrap, changelog,
        true)) {
      counts.put(r.partition() + "/" + r.key(), r.value());
    }
    return counts;
  }

  /** The name {@link #counts} gives the count of a key in a task. */
  static String countOf(int task, String key) {
    return task + "/" + key;
  }

  /** Every output record a reader of committed data sees. */
  List<ConsumerRecord<String, String>> output() {
    awaitNoOpenTransactions(out);
    return KafkaTestSupport.readAll(bootstrap, out, true);
  }

  /**
   * Waits until no transaction is open on a topic (its last stable offsets have reached its high
   * watermarks): a process killed with a transaction open leaves it open until its time-out.
   */
  void awaitNoOpenTransactions(String topic) {
    try {
      KafkaTestSupport.await(Duration.ofSeconds(60), "no open transaction on " + topic, () -> {
        try {
          int n = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS)
              .get(topic).partitions().size();
          Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
          for (int p = 0; p < n; p++) {
            latest.put(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec
                .latest());
          }
          var committed = admin.listOffsets(latest, new org.apache.kafka.clients.admin
              .ListOffsetsOptions(org.apache.kafka.common.IsolationLevel.READ_COMMITTED)).all()
              .get(10, TimeUnit.SECONDS);
          var all = admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
          for (TopicPartition tp : latest.keySet()) {
            if (committed.get(tp).offset() != all.get(tp).offset()) {
              return false;
            }
          }
          return true;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try {
      if (feeder != null) {
        feeder.running.set(false);
        feeder.join(30_000);
      }
      for (Process p : children.values()) {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      children.clear();
      admin.close();
    }
  }

  /** Writes to every partition in rounds: key and value made from the partition and offset. */
  final class Feeder extends Thread {
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicLongArray sent = new AtomicLongArray(partitions);
    private final KafkaProducer<String, String> producer = TestBroker.producer(bootstrap);

    Feeder() {
      super("scale-out-feeder");
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        while (running.get()) {
          writeRound(2); // ~100 records a second per partition
          Thread.sleep(20);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        producer.close();
      }
    }

    synchronized void writeRound(int n) {
      for (int p = 0; p < partitions; p++) {
        for (int i = 0; i < n; i++) {
          long offset = sent.getAndIncrement(p);
          producer.send(new ProducerRecord<>(in, p, keyOf(p, offset), "p" + p + "-" + offset));
        }
      }
      producer.flush();
    }
  }
}
