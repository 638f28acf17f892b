package io.millrace.bench.scaleout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The processes of one job on one system, each a child JVM started, killed (SIGKILL) or stopped
 * (SIGTERM) for real; each one's output goes to {@code <dir>/<label>/out.log}.
 */
abstract class Fleet implements AutoCloseable {
  final JobSpec job;
  final Path dir;
  private final Map<String, Process> processes = new LinkedHashMap<>();

  Fleet(JobSpec job, Path dir) {
    this.job = job;
    this.dir = dir;
  }

  /** The name RESULT lines use. */
  abstract String system();

  /** The child's command line. */
  abstract List<String> command(String label, Path home) throws IOException;

  /** The failover's parts as the survivors saw them, from {@code killMs}. */
  abstract Phases phases(long killMs, Set<Integer> moved, Collection<String> survivors)
      throws Exception;

  /**
   * How far the restart of {@code label} at {@code sinceMs} had got once every task emitted again:
   * when it held every task with its stores ready, and what it restored.
   */
  abstract Readiness readiness(String label, long sinceMs) throws Exception;

  /**
   * Starts process {@code label}; a restart keeps its home (its state directory), and the log of
   * the process before it as {@code out.<n>.log}.
   */
  void start(String label) throws IOException {
    Path home = Files.createDirectories(dir.resolve(label));
    Path log = home.resolve("out.log");
    for (int n = 1; Files.exists(log); n++) {
      Path kept = home.resolve("out." + n + ".log");
      if (!Files.exists(kept)) {
        Files.move(log, kept);
      }
    }
    List<String> command = new ArrayList<>(command(label, home));
    command.add(1, GcPauses.option(home)); // after the java executable, before its options
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    processes.put(label, p);
  }

  long pid(String label) {
    return processes.get(label).pid();
  }

  /**
   * Milliseconds of process {@code pid}'s GC pauses inside {@code [fromMs, toMs]}, or -1 if no
   * process of this fleet has that pid (or it logged nothing).
   */
  long gcWithin(long pid, long fromMs, long toMs) throws IOException {
    for (Map.Entry<String, Process> e : processes.entrySet()) {
      if (e.getValue().pid() == pid) {
        return GcPauses.within(dir.resolve(e.getKey()), pid, fromMs, toMs);
      }
    }
    return -1;
  }

  Set<String> labels() {
    return processes.keySet();
  }

  /** SIGKILL: no commit, no leave. */
  void kill(String label) throws InterruptedException {
    Process p = processes.remove(label);
    p.destroyForcibly();
    p.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, and waits for the process to exit. */
  void stop(String label) throws InterruptedException {
    Process p = processes.remove(label);
    p.destroy();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
  }

  /** Fails, with its log's tail, if a process died on its own. */
  void checkAlive() {
    for (Map.Entry<String, Process> e : processes.entrySet()) {
      if (!e.getValue().isAlive()) {
        throw new IllegalStateException(system() + " process " + e.getKey() + " exited with "
            + e.getValue().exitValue() + ": " + tail(e.getKey()));
      }
    }
  }

  String tail(String label) {
    try {
      List<String> lines = Files.readAllLines(dir.resolve(label).resolve("out.log"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return e.toString();
    }
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  @Override
  public void close() {
    for (Process p : processes.values()) {
      p.destroyForcibly();
    }
    processes.clear();
  }
}
