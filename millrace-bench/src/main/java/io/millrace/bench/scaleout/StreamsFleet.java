package io.millrace.bench.scaleout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The job on Kafka Streams 4.3 (the peers profile's jars): {@code StreamsScaleOutWorker} per
 * process. The failover's parts come from the EVENT lines the survivors print: REBALANCING (it
 * learnt of the rebalance), each moved store partition's restore start and end.
 */
final class StreamsFleet extends Fleet {
  static final String WORKER = "io.millrace.bench.peers.StreamsScaleOutWorker";
  private final String classpath;
  private final List<String> jvm;

  StreamsFleet(JobSpec job, Path dir, String classpath, List<String> jvm) {
    super(job, dir);
    this.classpath = classpath;
    this.jvm = jvm;
  }

  @Override
  String system() {
    return "kafka_streams";
  }

  @Override
  List<String> command(String label, Path home) {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.addAll(jvm);
    command.addAll(List.of("-cp", classpath, WORKER, "--bootstrap", job.bootstrap(), "--app-id",
        job.group(), "--in", job.in(), "--out", job.out(), "--mode",
        job.count() ? "count" : "pass", "--session-ms", Long.toString(job.sessionMs()),
        "--standbys", Integer.toString(job.standbys()), // Kafka Streams' num.standby.replicas
        "--guarantee", job.exactlyOnce() ? "exactly_once_v2" : "at_least_once",
        "--state-dir", home.resolve("state").toString()));
    return command;
  }

  /**
   * The fields of the EVENT lines process {@code label} printed at or after {@code sinceMs}:
   * {@code EVENT <epoch ms> <what> <arguments...>}.
   */
  private List<String[]> events(String label, long sinceMs) throws IOException {
    List<String[]> events = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve(label).resolve("out.log"))) {
      String[] f = line.split(" ");
      if (f.length >= 4 && f[0].equals("EVENT") && Long.parseLong(f[1]) >= sinceMs) {
        events.add(f);
      }
    }
    return events;
  }

  /**
   * From the process's EVENT lines since {@code sinceMs}: its last change to RUNNING (every task
   * restored and running), its first restore start to its last restore end, and the records the
   * restore ends count.
   */
  @Override
  Readiness readiness(String label, long sinceMs) throws IOException {
    long running = 0;
    long restoreStart = Long.MAX_VALUE;
    long restoreEnd = 0;
    long restored = 0;
    for (String[] f : events(label, sinceMs)) {
      long ms = Long.parseLong(f[1]);
      switch (f[2]) {
        case "state" -> running = f[3].equals("RUNNING") ? ms : running;
        case "restore-start" -> restoreStart = Math.min(restoreStart, ms);
        case "restore-end" -> {
          restoreEnd = Math.max(restoreEnd, ms);
          restored += Long.parseLong(f[4]);
        }
        default -> { }
      }
    }
    return new Readiness(running, restoreEnd == 0 ? 0 : restoreEnd - restoreStart, restored);
  }

  @Override
  Phases phases(long killMs, Set<Integer> moved, Collection<String> survivors)
      throws IOException {
    long detect = Long.MAX_VALUE;
    long restoreStart = Long.MAX_VALUE;
    long restoreEnd = 0;
    long running = 0;
    for (String label : survivors) {
      for (String[] f : events(label, killMs)) {
        long ms = Long.parseLong(f[1]);
        switch (f[2]) {
          case "state" -> {
            if (f[3].equals("REBALANCING")) {
              detect = Math.min(detect, ms);
            } else if (f[3].equals("RUNNING")) {
              running = Math.max(running, ms);
            }
          }
          case "restore-start" -> {
            if (moved.contains(Integer.parseInt(f[3]))) {
              restoreStart = Math.min(restoreStart, ms);
            }
          }
          case "restore-end" -> {
            if (moved.contains(Integer.parseInt(f[3]))) {
              restoreEnd = Math.max(restoreEnd, ms);
            }
          }
          default -> { }
        }
      }
    }
    if (detect == Long.MAX_VALUE) {
      return Phases.UNKNOWN;
    }
    if (restoreStart == Long.MAX_VALUE) { // nothing to restore: the assignment ends in RUNNING
      return running == 0 ? Phases.UNKNOWN : new Phases(detect - killMs, running - detect, 0);
    }
    return new Phases(detect - killMs, restoreStart - detect, restoreEnd - restoreStart);
  }
}
