package io.millrace.kafka.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * A single-node Apache Kafka broker (KRaft, broker and controller in one process) for tests and
 * for trying Millrace's Kafka examples: started in a child JVM from Maven Central's jars, listening
 * on 127.0.0.1 only, with its data and log under one directory. No Docker.
 *
 * <p>{@link #start} formats the directory the first time and returns once the broker answers an
 * admin request; {@link #stop} shuts it down cleanly; {@link #kill} kills it (for crash tests);
 * {@link #restart} starts it again on the same port and data.
 */
public final class DevBroker implements AutoCloseable {
  private final Path dir;
  private final int port;
  private final int controllerPort;
  private final String classpath;
  private final List<String> jvmOptions;
  private Process process;

  private DevBroker(Path dir, int port, int controllerPort, String classpath,
      List<String> jvmOptions) {
    this.dir = dir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.classpath = classpath;
    this.jvmOptions = jvmOptions;
  }

  /**
   * Starts a broker and waits until it serves requests.
   *
   * @param dir where its data, configuration and log go (created if missing; reused if formatted)
   * @param port the client port, or 0 for a free one
   * @param brokerLib the directory holding the broker's jars (millrace-kafka's target/broker-lib)
   * @param jvmOptions options for the broker's JVM (heap, GC)
   * @param timeout how long to wait for it
   */
  public static DevBroker start(Path dir, int port, Path brokerLib, List<String> jvmOptions,
      Duration timeout) throws IOException {
    if (!Files.isDirectory(brokerLib)) {
      throw new IllegalStateException("the broker's jars are not in " + brokerLib
          + ": build first (mvn -B -q -DskipTests package)");
    }
    String classpath = codeSource() + java.io.File.pathSeparator + brokerLib.toAbsolutePath()
        + java.io.File.separator + "*";
    DevBroker broker = new DevBroker(dir.toAbsolutePath(), port == 0 ? freePort() : port,
        freePort(), classpath, List.copyOf(jvmOptions));
    broker.launch(timeout);
    return broker;
  }

  /** {@code host:port} for clients. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** The client port. */
  public int port() {
    return port;
  }

  /** The broker's process id. */
  public long pid() {
    return process.pid();
  }

  /** The directory of the broker's data, configuration and log. */
  public Path dir() {
    return dir;
  }

  /** The broker's log file. */
  public Path logFile() {
    return dir.resolve("broker.log");
  }

  /** Whether the broker process is alive. */
  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  private void launch(Duration timeout) throws IOException {
    Files.createDirectories(dir);
    Path config = dir.resolve("server.properties");
    writeConfig(config);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classpath);
    command.add(BrokerMain.class.getName());
    command.add(config.toString());
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
    process = builder.start();
    awaitReady(timeout);
  }

  private void writeConfig(Path config) throws IOException {
    Properties p = new Properties();
    p.putAll(Map.ofEntries(
        Map.entry("process.roles", "broker,controller"),
        Map.entry("node.id", "1"),
        Map.entry("controller.quorum.voters", "1@127.0.0.1:" + controllerPort),
        Map.entry("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:"
            + controllerPort),
        Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port),
        Map.entry("controller.listener.names", "CONTROLLER"),
        Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
        Map.entry("inter.broker.listener.name", "PLAINTEXT"),
        Map.entry("log.dirs", dir.resolve("data").toString()),
        Map.entry("num.partitions", "1"),
        Map.entry("auto.create.topics.enable", "false"),
        Map.entry("offsets.topic.replication.factor", "1"),
        Map.entry("transaction.state.log.replication.factor", "1"),
        Map.entry("transaction.state.log.min.isr", "1"),
        Map.entry("share.coordinator.state.topic.replication.factor", "1"),
        Map.entry("share.coordinator.state.topic.min.isr", "1"),
        Map.entry("group.initial.rebalance.delay.ms", "0"),
        // A transaction left open by a killed process is aborted within a second of its time-out
        // (Kafka's default sweep is every 10 s), so the tests do not wait on it.
        Map.entry("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000"),
        // A deleted topic's files go at once, not a minute later (Kafka's default), and from
        // the broker's start on, not 30 s after it: a benchmark's clean-up of one run's 2 GB
        // output landed inside a later run.
        Map.entry("log.segment.delete.delay.ms", "0"),
        // No deletion by age: a DSL result carries its window's event time, and records stamped
        // long ago (a test's event times from 1970, a replay of old data) were deleted by the
        // first retention check once their segment rolled; a kill test's reader, reading as the
        // segment went, lost a window's result. A development broker's data is thrown away whole.
        Map.entry("log.retention.ms", "-1"),
        Map.entry("log.initial.task.delay.ms", "0")));
    try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      p.store(out, "Millrace development broker (single node, KRaft); written by DevBroker");
    }
  }

  private void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!accepts()) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the Kafka broker exited with code " + process.exitValue()
            + " while starting; its log: " + logFile() + "\n" + tail());
      }
      if (System.nanoTime() > deadline) {
        kill();
        throw new IllegalStateException("the Kafka broker did not accept connections on "
            + bootstrapServers() + " within " + timeout.toSeconds() + " s; its log: " + logFile()
            + "\n" + tail());
      }
      sleep(50);
    }
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrapServers());
    props.put("default.api.timeout.ms", Long.toString(Math.max(1000, remaining(deadline))));
    try (Admin admin = Admin.create(props)) {
      admin.describeCluster().nodes().get(Math.max(1000, remaining(deadline)),
          TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      kill();
      throw new IllegalStateException("the Kafka broker on " + bootstrapServers()
          + " did not answer: " + e + "; its log: " + logFile() + "\n" + tail(), e);
    }
  }

  private static long remaining(long deadline) {
    return TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
  }

  private boolean accepts() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The last lines of the broker's log, for error messages. */
  public String tail() {
    try {
      List<String> lines = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  /** Shuts the broker down cleanly (SIGTERM), waiting up to 30 s, then kills it. */
  public void stop() {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
    }
  }

  /** Kills the broker at once (SIGKILL), as a crash would. */
  public void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts the broker again on the same ports and data (after {@link #stop} or {@link #kill}). */
  public void restart(Duration timeout) throws IOException {
    stop();
    launch(timeout);
  }

  @Override
  public void close() {
    stop();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Where this class was loaded from (the millrace-kafka jar or classes directory). */
  private static String codeSource() {
    try {
      return Path.of(DevBroker.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (URISyntaxException e) {
      throw new UncheckedIOException(new IOException(e));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the Kafka broker", e);
    }
  }
}
