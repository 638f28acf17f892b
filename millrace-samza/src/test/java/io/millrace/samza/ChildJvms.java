package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.testing.Await;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * The child JVMs the migration tests run a Samza job in, from the job's properties file as a
 * user keeps it: Samza 1.8's own runtime ({@link SamzaMain}, on {@code millrace-samza-peer}'s
 * Samza class path and the test classes) and Millrace's ({@code millrace run}, on this test's
 * class path). Each prints to {@code target/<log>}; a test ends a child with {@link #kill}.
 */
final class ChildJvms {
  /**
   * How often a test asks the broker or a child JVM whether what it waits for holds: each check
   * is a round trip or more, which every millisecond would only take the cores the children need.
   */
  static final Duration POLL = Duration.ofMillis(20);

  private ChildJvms() {}

  /** Writes a job's keys to {@code dir/name}, as a user keeps the file. */
  static Path jobFile(Map<String, String> config, Path dir, String name) throws IOException {
    Path file = dir.resolve(name);
    Properties p = new Properties();
    p.putAll(config);
    try (OutputStream out = Files.newOutputStream(file)) {
      p.store(out, "written by a millrace-samza test");
    }
    return file;
  }

  /** Starts the job of {@code file} on Samza 1.8's own runtime. */
  static Process samza(Path file, String log) throws IOException {
    String lib = System.getProperty("samza.runtime.lib",
        Path.of("..", "millrace-samza-peer", "target", "samza-lib").toString());
    String classPath = Path.of(lib).toAbsolutePath() + "/*" + File.pathSeparator
        + Path.of("target", "test-classes").toAbsolutePath();
    return start(List.of("-Xmx384m", "-XX:+UseSerialGC", "-cp", classPath,
        SamzaMain.class.getName(), file.toString()), log);
  }

  /** Starts the job of {@code file} on Millrace ({@code millrace run <file>}). */
  static Process millrace(Path file, String log) throws IOException {
    return start(List.of("-Xmx384m", "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"), io.millrace.core.cli.Main.class.getName(), "run",
        file.toString()), log);
  }

  private static Process start(List<String> args, String log) throws IOException {
    List<String> command = new java.util.ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(args);
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(Path.of("target", log).toFile()).start();
  }

  /**
   * Waits until {@code done} holds; fails, naming the log, if the child stopped before.
   */
  static void awaitWhileAlive(Process child, String log, String what, Callable<Boolean> done)
      throws Exception {
    Await.until(Await.DEADLINE, POLL, what + " (target/" + log + ")", () -> {
      if (!child.isAlive()) {
        throw stopped("the child JVM", child, log);
      }
      return done.call();
    });
  }

  /**
   * The failure of a child that stopped before it was asked to: its exit code, its log's name,
   * and the log's lines that say why (its errors and their causes, then its last lines), so that a
   * CI run, whose clone and logs are gone, still shows the cause.
   */
  static AssertionError stopped(String name, Process child, String log) {
    StringBuilder why = new StringBuilder(name + " stopped (exit " + child.exitValue()
        + "): see target/" + log);
    try {
      List<String> lines = Files.readAllLines(Path.of("target", log));
      List<String> errors = lines.stream()
          .filter(l -> l.startsWith("error:") || l.contains(" ERROR ")
              || l.startsWith("Caused by:") || l.contains("Exception:") || l.contains("Error:"))
          .toList();
      appendLast(why, "its errors", errors, 12);
      appendLast(why, "its last lines", lines, 8);
    } catch (IOException | java.io.UncheckedIOException e) {
      why.append("; its log cannot be read: ").append(e);
    }
    return new AssertionError(why.toString());
  }

  private static void appendLast(StringBuilder to, String what, List<String> lines, int n) {
    to.append("\n").append(what).append(lines.isEmpty() ? ": none" : ":");
    for (String line : lines.subList(Math.max(0, lines.size() - n), lines.size())) {
      to.append("\n  ").append(line.length() > 300 ? line.substring(0, 300) + "..." : line);
    }
  }

  /** Runs Samza until {@code done} holds, then kills it. */
  static void runSamzaUntil(Path file, String log, String what, Callable<Boolean> done)
      throws Exception {
    Process samza = samza(file, log);
    try {
      awaitWhileAlive(samza, log, what, done);
    } finally {
      kill(samza);
    }
  }

  /** SIGKILL: no final commit, no clean close; returns once the process is gone. */
  static void kill(Process child) throws InterruptedException {
    child.destroyForcibly();
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("pid %s gone", child.pid()).isTrue();
  }
}
