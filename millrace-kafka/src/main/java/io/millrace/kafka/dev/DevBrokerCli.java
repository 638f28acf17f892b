package io.millrace.kafka.dev;

import io.millrace.api.Serde;
import io.millrace.core.serde.Serdes;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * {@code millrace kafka-dev start|stop|status|tail}: a single-node Kafka broker on 127.0.0.1 for
 * trying the Kafka examples, started in the background and left running until {@code stop}.
 *
 * <pre>
 * millrace kafka-dev start [--port 9092] [--dir millrace-output/kafka-dev]
 * millrace kafka-dev stop  [--dir ...]
 * millrace kafka-dev status [--dir ...]
 * millrace kafka-dev tail &lt;topic&gt; [--port 9092] [--max 20] [--value-serde string]
 *     (prints key TAB value, oldest first; --value-serde long for counts)
 * </pre>
 *
 * <p>The broker's jars come from {@code millrace.broker.lib} (set by bin/millrace to
 * millrace-kafka/target/broker-lib).
 */
public final class DevBrokerCli {
  static final String USAGE = String.join("\n",
      "usage: millrace kafka-dev start [--port 9092] [--dir millrace-output/kafka-dev]",
      "       millrace kafka-dev stop [--dir millrace-output/kafka-dev]",
      "       millrace kafka-dev status [--dir millrace-output/kafka-dev]",
      "       millrace kafka-dev tail <topic> [--port 9092] [--max 20] [--value-serde string|long|...]");

  private DevBrokerCli() {}

  /** Entry point. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs a command; returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.println(USAGE);
      return 2;
    }
    String topic = args[0].equals("tail") && args.length > 1 ? args[1] : null;
    Path dir = Path.of("millrace-output", "kafka-dev");
    int port = 9092;
    int max = 20;
    String valueSerde = "string";
    for (int i = topic == null ? 1 : 2; i < args.length; i++) {
      if (i + 1 >= args.length) {
        err.println("missing value after " + args[i] + "\n" + USAGE);
        return 2;
      }
      switch (args[i]) {
        case "--dir" -> dir = Path.of(args[++i]);
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--max" -> max = Integer.parseInt(args[++i]);
        case "--value-serde" -> valueSerde = args[++i];
        default -> {
          err.println("unexpected argument '" + args[i] + "'\n" + USAGE);
          return 2;
        }
      }
    }
    try {
      return switch (args[0]) {
        case "start" -> start(dir, port, out, err);
        case "stop" -> stop(dir, out, err);
        case "status" -> status(dir, out);
        case "tail" -> topic == null ? usage(err) : tail(topic, port, max, valueSerde, out);
        default -> usage(err);
      };
    } catch (IOException | RuntimeException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
  }

  private static int usage(PrintStream err) {
    err.println(USAGE);
    return 2;
  }

  private static int start(Path dir, int port, PrintStream out, PrintStream err)
      throws IOException {
    Optional<ProcessHandle> running = running(dir);
    if (running.isPresent()) {
      out.println("a Kafka broker is already running (pid " + running.get().pid() + ", "
          + Files.readString(dir.resolve("broker.address")).trim() + ")");
      return 0;
    }
    String lib = System.getProperty("millrace.broker.lib", "millrace-kafka/target/broker-lib");
    out.println("starting a single-node Kafka broker on 127.0.0.1:" + port + " (data and log in "
        + dir + ") ...");
    DevBroker broker = DevBroker.start(dir, port, Path.of(lib),
        List.of("-Xms256m", "-Xmx1g"), Duration.ofSeconds(90));
    Files.writeString(dir.resolve("broker.pid"), Long.toString(broker.pid()));
    Files.writeString(dir.resolve("broker.address"), broker.bootstrapServers());
    out.println("Kafka broker running: bootstrap servers " + broker.bootstrapServers() + " (pid "
        + broker.pid() + "). Stop it with: bin/millrace kafka-dev stop");
    return 0;
  }

  private static int stop(Path dir, PrintStream out, PrintStream err) throws IOException {
    Optional<ProcessHandle> running = running(dir);
    if (running.isEmpty()) {
      out.println("no Kafka broker is running from " + dir);
      return 0;
    }
    ProcessHandle broker = running.get();
    broker.destroy();
    try {
      broker.onExit().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      err.println("the broker did not stop within 30 s: killing it");
      broker.destroyForcibly();
    }
    Files.deleteIfExists(dir.resolve("broker.pid"));
    out.println("Kafka broker stopped (its data stays in " + dir + ")");
    return 0;
  }

  private static int status(Path dir, PrintStream out) throws IOException {
    Optional<ProcessHandle> running = running(dir);
    if (running.isEmpty()) {
      out.println("not running");
      return 3;
    }
    out.println("running: " + Files.readString(dir.resolve("broker.address")).trim() + " (pid "
        + running.get().pid() + ")");
    return 0;
  }

  /** Prints up to {@code max} records of every partition of a topic, oldest first. */
  private static int tail(String topic, int port, int max, String valueSerde, PrintStream out) {
    Serde<?> values = Serdes.byName("--value-serde", valueSerde);
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:" + port);
    p.put("default.api.timeout.ms", "10000");
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer.partitionsFor(topic, Duration.ofSeconds(10)).forEach(info ->
          partitions.add(new TopicPartition(topic, info.partition())));
      if (partitions.isEmpty()) {
        throw new IllegalArgumentException("topic " + topic + " does not exist");
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      var end = consumer.endOffsets(partitions);
      int printed = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (printed < max && partitions.stream().anyMatch(tp -> consumer.position(tp)
          < end.get(tp)) && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (printed++ < max) {
            out.println(r.key() + "\t" + (r.value() == null ? null : values.fromBytes(r.value())));
          }
        }
      }
    }
    return 0;
  }

  /** The broker started from {@code dir}, if its process is alive. */
  static Optional<ProcessHandle> running(Path dir) throws IOException {
    Path pid = dir.resolve("broker.pid");
    if (!Files.exists(pid)) {
      return Optional.empty();
    }
    long id = Long.parseLong(Files.readString(pid, StandardCharsets.UTF_8).trim());
    return ProcessHandle.of(id).filter(ProcessHandle::isAlive);
  }
}
