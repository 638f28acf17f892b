package io.millrace.kafka;

import io.millrace.kafka.settings.KafkaSettings;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.core.testing.TestSystemContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Jobs and topics for the Kafka integration tests. */
final class KafkaTestSupport {
  private KafkaTestSupport() {}

  /** A fresh topic name. */
  static String topic(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** The base configuration of a job on a broker, reading {@code in} and writing {@code out}. */
  static Map<String, String> job(String bootstrap, String name, Class<?> task, String inTopic,
      String outTopic, String stateDir) {
    Map<String, String> c = new HashMap<>();
    c.put("job.name", name);
    c.put("job.state.dir", stateDir);
    c.put("task.class", task.getName());
    c.put("task.inputs", "in");
    c.put("systems.kafka.bootstrap.servers", bootstrap);
    c.put("systems.kafka.startup.timeout.ms", "20000");
    c.put("streams.in.system", "kafka");
    c.put("streams.in.physical.name", inTopic);
    if (outTopic != null) {
      c.put("task.outputs", "out");
      c.put("streams.out.system", "kafka");
      c.put("streams.out.physical.name", outTopic);
    }
    return c;
  }

  /**
   * Sends the job's failed messages ({@code task.error.policy=dead-letter}) to a new topic on the
   * job's Kafka system, as JSON, and returns the topic.
   */
  static String deadLetterTo(Map<String, String> config, String prefix) {
    String topic = topic(prefix);
    config.put("task.dead.letter.stream", "dead");
    config.put("streams.dead.system", "kafka");
    config.put("streams.dead.physical.name", topic);
    config.put("streams.dead.value.serde", "json");
    return topic;
  }

  /** Plans and starts a job. */
  static LocalRunner start(Map<String, String> config) {
    JobPlan plan = JobPlanner.plan(JobConfig.of(config));
    LocalRunner runner = new LocalRunner(plan, Clock.SYSTEM);
    runner.start();
    return runner;
  }

  /** Stops a job (commit and close) and rethrows its failure. */
  static void stop(LocalRunner runner) throws Throwable {
    runner.requestStop();
    if (!runner.await(60, TimeUnit.SECONDS)) {
      throw new AssertionError("the job did not stop within 60 s");
    }
    if (runner.failure() != null) {
      throw runner.failure();
    }
  }

  /** Waits until {@code condition} holds, or fails after {@code timeout}. */
  static void await(Duration timeout, String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    await(timeout, what, condition, () -> "");
  }

  /** As {@link #await}, and a failure says what {@code diagnosis} finds at the deadline. */
  static void await(Duration timeout, String what, java.util.function.BooleanSupplier condition,
      java.util.function.Supplier<String> diagnosis) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        String found = diagnosis.get();
        throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for "
            + what + (found.isEmpty() ? "" : "; found: " + found));
      }
      Thread.sleep(20);
    }
  }

  /** Reads every record of a topic now on the broker (all partitions), as strings. */
  static List<ConsumerRecord<String, String>> readAll(String bootstrap, String topic) {
    return readAll(bootstrap, topic, false);
  }

  /**
   * Reads every record of a topic now on the broker, as strings; {@code committed}: only what
   * committed transactions hold (and non-transactional records), as a downstream reader of
   * committed data sees it.
   */
  static List<ConsumerRecord<String, String>> readAll(String bootstrap, String topic,
      boolean committed) {
    return readAll(bootstrap, topic, committed, new StringDeserializer());
  }

  /**
   * Reads every record of a topic now on the broker, keys as strings and values as the long they
   * hold (a changelog of counts): read as bytes, never through a string, whose UTF-8 decoding
   * turns a byte of 0x80 or more into '?' (a count of 128 read back as 63).
   */
  static List<ConsumerRecord<String, Long>> readLongs(String bootstrap, String topic,
      boolean committed) {
    return readAll(bootstrap, topic, committed,
        new org.apache.kafka.common.serialization.LongDeserializer());
  }

  private static <V> List<ConsumerRecord<String, V>> readAll(String bootstrap, String topic,
      boolean committed, org.apache.kafka.common.serialization.Deserializer<V> values) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("isolation.level", committed ? "read_committed" : "read_uncommitted");
    List<ConsumerRecord<String, V>> out = new ArrayList<>();
    try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
        values)) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer.partitionsFor(topic, Duration.ofSeconds(20)).forEach(info ->
          partitions.add(new TopicPartition(topic, info.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(20));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + topic + " to its end");
        }
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  /** The settings of the job's Kafka system, as its factory would see them. */
  static KafkaSettings settings(Map<String, String> config) {
    return new KafkaSettings(new TestSystemContext("kafka", config.get("job.name"), -1,
        JobConfig.of(config).withPrefix("systems.kafka."), config, null));
  }

  /**
   * Runs a job with {@code bin/millrace run}'s main class in a child JVM (so a test can kill it),
   * writing its properties to {@code dir/job.properties} and its output to {@code dir/child.log};
   * {@code jvmOptions} go before its class path (log levels, say).
   */
  static Process startChild(Map<String, String> config, java.nio.file.Path dir,
      String... jvmOptions) throws java.io.IOException {
    java.nio.file.Path properties = dir.resolve("job.properties");
    StringBuilder text = new StringBuilder();
    config.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    java.nio.file.Files.writeString(properties, text);
    List<String> command = new ArrayList<>(List.of(
        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m"));
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
        io.millrace.core.cli.Main.class.getName(), "run", properties.toString()));
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("child.log").toFile()).start();
  }

  /**
   * The threads of a live child JVM as {@code jcmd Thread.print} shows them, written to
   * {@code threads-<millis>.txt} in {@code dir}: a stalled child's stacks say which wait holds it
   * (a failure found at a deadline is rare and gone once the child is killed). Returns where the
   * dump went, or why there is none.
   */
  static String threadDump(Process child, java.nio.file.Path dir) {
    if (!child.isAlive()) {
      return "no thread dump: pid " + child.pid() + " is not alive";
    }
    java.nio.file.Path jcmd = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd");
    java.nio.file.Path file = dir.resolve("threads-" + System.currentTimeMillis() + ".txt");
    try {
      Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(child.pid()),
          "Thread.print", "-l").redirectErrorStream(true).redirectOutput(file.toFile()).start();
      if (!dump.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
        dump.destroyForcibly(); // a stopped (SIGSTOP) child does not answer
        return "no thread dump: jcmd did not finish within 30 s (is pid " + child.pid()
            + " stopped?)";
      }
      return "thread dump of pid " + child.pid() + " in " + file;
    } catch (java.io.IOException e) {
      return "no thread dump: cannot run " + jcmd + ": " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "no thread dump: interrupted";
    }
  }

  /** What a child started by {@link #startChild} printed. */
  static String childLog(java.nio.file.Path dir) {
    try {
      return java.nio.file.Files.readString(dir.resolve("child.log"));
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  /** A job's checkpoint in its Kafka checkpoint topic, read now. */
  static Map<io.millrace.api.StreamPartition, Long> readCheckpoint(KafkaSettings settings,
      String job) {
    try (io.millrace.kafka.checkpoint.KafkaCheckpointStore store =
        new io.millrace.kafka.checkpoint.KafkaCheckpointStore(settings, job)) {
      return store.read();
    }
  }
}
