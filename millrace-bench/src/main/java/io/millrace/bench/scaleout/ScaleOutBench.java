package io.millrace.bench.scaleout;

import io.millrace.bench.support.Args;
import io.millrace.bench.support.Stats;
import io.millrace.bench.support.TempDirs;
import io.millrace.kafka.dev.DevBroker;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code bench scale-out}: one job on several processes, on Millrace ({@code job.coordinator=kafka})
 * and on Kafka Streams 4.3 (when the peers profile is built) in the same run, with the same session
 * timeout, against a broker it starts. Every process is a child JVM; every figure comes from the
 * output records themselves, which carry the wall-clock time their task emitted them ({@link
 * Emission}), so both systems are timed the same way.
 *
 * <ul>
 *   <li><b>failover</b>: 3 processes, 24 tasks counting per key in a changelogged RocksDB store
 *       (1,000,000 keys written before the start, then a steady feed); kill -9 one; time from the
 *       kill until every task it held has emitted again elsewhere, split into detection,
 *       rebalance, restore and first output (Millrace: from its status topic; Kafka Streams: from
 *       its state and restore listeners).
 *   <li><b>join</b>: on the same job, back to 3 processes, then a 4th joins: the longest gap
 *       between two emissions of any task that did not move, from the join until 5 s after the
 *       group is stable with every task emitting; beside it, the longest gap over 5 s of steady
 *       running before the join (the commit's pause). The same on the stateless job, before its
 *       leave.
 *   <li><b>scale-up</b> (not run by default): the count job holding {@code --state-mb} of state
 *       (1 GiB; written to its changelog before the start, restored by the 3 processes); a 4th
 *       joins: the longest gap between two emissions of any task, moved ones included, until the
 *       new process holds its share or {@code --scale-up-window-ms} passed.
 *   <li><b>restore-beside</b> (not run by default; Millrace only): 8 tasks on 2 processes; one
 *       task's changelog holds {@code --state-mb}, the others have a backlog; the process holding
 *       the big task stops and the other restores it beside its running tasks: their output rate
 *       during the restore over their rate after it.
 *   <li><b>leave</b>: 4 processes of a stateless job; SIGTERM one; time until every task it held
 *       has emitted elsewhere, split like the failover (detection is then the stopping process's
 *       final commit and leave, plus the survivors' next heartbeat).
 *   <li><b>eos-recovery</b> (not run by default; {@code bench kafka-eos-recovery}): one process
 *       holding {@code --state-mb} under exactly-once is killed with SIGKILL and started again:
 *       time to ready stores, see {@link EosRecovery}.
 *   <li><b>cost</b>: the stateless job over a pre-filled input with 1, 2 and 3 processes on this
 *       one machine: aggregate records/s over a window that starts once the group is stable. On
 *       two cores this is the cost of coordination, not scaling; Kafka Streams' own ratio, run
 *       the same way, says what the machine takes from any system.
 * </ul>
 *
 * <p><b>Size.</b> Past 500 lines: one method per scenario, each with its own measurement
 * window; the fleets, the feeder and the watches are classes of their own.
 */
public final class ScaleOutBench {
  final String bootstrap;
  final Path dir;
  final int partitions;
  final long keys;
  final long rate;
  final long sessionMs;
  /** Standby replicas of each stateful task ({@code --standbys}), on both systems. */
  private final int standbys;
  /**
   * {@code --guarantee exactly-once}: the failover, join and leave jobs under Millrace's
   * exactly-once and Kafka Streams' exactly_once_v2 (each its default commit interval).
   */
  private final boolean exactlyOnce;
  private final String millraceCp;
  private final String streamsCp;
  private final List<String> jvm;
  final Group group;
  private final Map<String, List<Double>> figures = new LinkedHashMap<>();
  /** Millrace job keys to try ({@code --set k=v,k2=v2}), e.g. a coordinator timing. */
  private final Map<String, String> millraceSet = new LinkedHashMap<>();

  private ScaleOutBench(Args args, String bootstrap, Path dir, String streamsCp) {
    this.bootstrap = bootstrap;
    this.dir = dir;
    this.partitions = (int) args.getLong("partitions", 24);
    this.keys = args.getLong("keys", 1_000_000);
    this.rate = args.getLong("rate", 12_000);
    this.sessionMs = args.getLong("session-ms", 10_000);
    this.standbys = (int) args.getLong("standbys", 0);
    String guarantee = args.get("guarantee", "at-least-once");
    if (!guarantee.equals("at-least-once") && !guarantee.equals("exactly-once")) {
      throw new IllegalArgumentException(
          "--guarantee takes at-least-once or exactly-once, got '" + guarantee + "'");
    }
    this.exactlyOnce = guarantee.equals("exactly-once");
    this.jvm = List.of(args.get("jvm-opts", "-Xmx512m").trim().split("\\s+"));
    this.millraceCp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(e -> !e.contains("peers-lib")).collect(Collectors.joining(File.pathSeparator));
    this.streamsCp = streamsCp == null ? null : millraceCp + File.pathSeparator + streamsCp;
    this.group = new Group(bootstrap);
    millraceSet.putAll(args.getSettings("set"));
  }

  /** Runs the scenarios; see the class comment. */
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, 0);
    int runs = (int) args.getLong("runs", 3);
    Set<String> scenarios = Set.of(args.get("scenarios", "failover,join,leave,cost").split(","));
    Path peersLib = Path.of(args.get("peers-lib", System.getProperty("millrace.peers.lib",
        "millrace-bench/target/peers-lib")));
    String streamsCp = null;
    if (!Files.isDirectory(peersLib) || ScaleOutBench.class.getResource(
        "/" + StreamsFleet.WORKER.replace('.', '/') + ".class") == null) {
      System.out.println("no Kafka Streams (" + peersLib + " or the peers classes are missing): "
          + "build them with mvn -B -q -Ppeers -pl millrace-bench -am package -DskipTests");
    } else if (!args.get("systems", "millrace,kafka_streams").contains("kafka_streams")) {
      System.out.println("Kafka Streams left out (--systems)");
    } else {
      streamsCp = peersLib.toAbsolutePath() + "/*";
    }
    Path dir = Files.createTempDirectory("millrace-scale-out");
    DevBroker broker = null;
    String bootstrap = args.get("bootstrap", null);
    if (bootstrap == null) {
      broker = DevBroker.start(dir.resolve("broker"), 0, Path.of(System.getProperty(
          "millrace.broker.lib", "millrace-kafka/target/broker-lib")), List.of("-Xms1g", "-Xmx1g"),
          Duration.ofSeconds(90));
      bootstrap = broker.bootstrapServers();
      System.out.println("broker: " + bootstrap + " (pid " + broker.pid() + "), data in " + dir);
    }
    int load = (int) args.getLong("background-load", 0);
    Process loadProcess = null;
    if (load > 0) {
      loadProcess = BackgroundLoad.start(load);
      System.out.println("background load: " + load + " spinning thread(s) in pid "
          + loadProcess.pid() + " for the whole run");
    }
    ScaleOutBench bench = new ScaleOutBench(args, bootstrap, dir, streamsCp);
    EosRecovery recovery = new EosRecovery(bench, args.getLong("state-mb", 1024) << 20,
        args.getLong("eos-run-ms", 15_000));
    try {
      for (int round = 1; round <= runs; round++) {
        List<String> systems = new ArrayList<>(List.of("millrace"));
        if (streamsCp != null) {
          systems.add(round % 2 == 1 ? 1 : 0, "kafka_streams"); // alternate who goes first
        }
        for (String system : systems) {
          if (scenarios.contains("failover") || scenarios.contains("join")) {
            bench.failoverAndJoin(system, round, scenarios.contains("join"));
          }
          if (scenarios.contains("leave")) {
            bench.leave(system, round, scenarios.contains("join"));
          }
        }
        if (scenarios.contains("scale-up")) {
          for (String system : systems) {
            bench.scaleUp(system, round, args.getLong("state-mb", 1024) << 20,
                args.getLong("scale-up-window-ms", 60_000));
          }
        }
        if (scenarios.contains("restore-beside")) {
          bench.restoreBeside(round, (int) args.getLong("beside-partitions", 8),
              args.getLong("state-mb", 1024) << 20,
              args.getLong("beside-records", 100_000_000));
        }
        if (scenarios.contains("eos-recovery")) {
          for (String system : systems) {
            recovery.run(system, round);
          }
        }
        if (scenarios.contains("cost")) {
          for (String system : systems) {
            bench.cost(system, round, args.getLong("cost-records", 40_000_000),
                args.getLong("cost-warmup-ms", 10_000), args.getLong("cost-window-ms", 10_000));
          }
        }
      }
      bench.report(runs);
      if (scenarios.contains("eos-recovery")) {
        recovery.report();
      }
    } finally {
      if (loadProcess != null) {
        loadProcess.destroyForcibly();
      }
      bench.group.close();
      if (broker != null) {
        broker.stop();
      }
      if (!args.get("keep", "false").equals("true")) {
        TempDirs.deleteRecursively(dir); // gigabytes of topics and stores; --keep true keeps them
      } else {
        System.out.println("kept: " + dir);
      }
    }
  }

  Fleet fleet(String system, JobSpec job, Path home) {
    return system.equals("millrace") ? new MillraceFleet(job, home, millraceCp, jvm, millraceSet)
        : new StreamsFleet(job, home, streamsCp, jvm);
  }

  private JobSpec job(String scenario, String system, int round, boolean count) throws Exception {
    return job(scenario, system, round, count, partitions);
  }

  private JobSpec job(String scenario, String system, int round, boolean count, int partitions)
      throws Exception {
    String id = "so-" + scenario + "-" + system.replace('_', '-') + "-" + round + "-"
        + UUID.randomUUID().toString().substring(0, 6);
    group.create(id + "-in", partitions);
    group.create(id + "-out", partitions);
    return new JobSpec(id, bootstrap, id + "-in", id + "-out", count, sessionMs, standbys,
        exactlyOnce);
  }

  private void failoverAndJoin(String system, int round, boolean join) throws Exception {
    JobSpec job = job("failover", system, round, true);
    try (Feeder feeder = new Feeder(bootstrap, job.in(), partitions, keys);
        OutputWatch watch = new OutputWatch(bootstrap, job.out(), partitions);
        Fleet fleet = fleet(system, job, dir.resolve(job.group()))) {
      feeder.prefill();
      feeder.start(rate);
      for (String label : List.of("a", "b", "c")) {
        fleet.start(label);
      }
      await(fleet, "3 processes hold every task and have counted the " + keys + " keys", 600,
          () -> group.stable(job.group(), 3, job.in(), partitions) && watch.total() >= keys
              && watch.allEmittedWithin(1_000) && owners(watch) == 3);

      takeover(system, round, "failover", fleet, watch, "b", true);
      if (!join) {
        return;
      }

      // Back to 3 members; Kafka Streams gives the new one warm-up tasks only (its active tasks
      // come at a probing rebalance, 10 min by default), so not every member need emit.
      fleet.start("d");
      await(fleet, "3 members again, every task emitting", sessionMs / 1000 + 300,
          () -> group.stable(job.group(), 3, job.in(), partitions)
              && watch.allEmittedWithin(1_000));
      join(system, round, "count", job, fleet, watch, "e");
    }
  }

  /**
   * Ends process {@code label} (kill -9, or SIGTERM when not {@code kill}) and times until every
   * task it held has emitted again from another process; records the total and its phases as
   * {@code <system>_<scenario>_ms}, {@code _detect_ms}, {@code _rebalance_ms}, {@code
   * _restore_ms} (for a stateless job: opening the tasks) and {@code _first_output_ms}.
   */
  private void takeover(String system, int round, String scenario, Fleet fleet,
      OutputWatch watch, String label, boolean kill) throws Exception {
    long victim = fleet.pid(label);
    Set<Integer> moved = watch.tasksOf(victim);
    long endMs = System.currentTimeMillis();
    watch.watchTakeover(endMs, victim);
    if (kill) {
      fleet.kill(label);
    } else {
      fleet.stop(label);
    }
    await(fleet, "the tasks " + moved + " of the " + (kill ? "killed" : "stopped") + " process "
            + "emit again elsewhere", sessionMs / 1000 + 300,
        () -> moved.stream().allMatch(t -> watch.firstAfter(t) > 0));
    long totalMs = moved.stream().mapToLong(watch::firstAfter).max().orElseThrow() - endMs;
    Phases phases = fleet.phases(endMs, moved, new ArrayList<>(fleet.labels()));
    System.out.printf(Locale.ROOT, "round %d %s %s: %d ms for %d moved tasks (detect %.0f, "
            + "rebalance %.0f, restore or start %.0f, first output %.0f)%n", round, system,
        scenario, totalMs, moved.size(), phases.detectMs(), phases.rebalanceMs(),
        phases.restoreMs(), phases.firstOutputMs(totalMs));
    String prefix = system + "_" + scenario;
    add(prefix + "_ms", totalMs);
    add(prefix + "_detect_ms", phases.detectMs());
    add(prefix + "_rebalance_ms", phases.rebalanceMs());
    add(prefix + "_restore_ms", phases.restoreMs());
    add(prefix + "_first_output_ms", phases.firstOutputMs(totalMs));
  }

  /**
   * With 3 processes running, measures the longest gap between two emissions of any task over 5 s
   * of steady running, then starts process {@code label} and measures the longest gap of the
   * tasks that did not move, from its start until 5 s after the group is stable with 4 members
   * and every task emitting.
   */
  private void join(String system, int round, String kind, JobSpec job, Fleet fleet,
      OutputWatch watch, String label) throws Exception {
    Gap baselineGap = steadyGap(watch, fleet);

    int[] ownersBefore = watch.owners();
    long joinMs = System.currentTimeMillis();
    watch.startGaps(joinMs);
    fleet.start(label);
    await(fleet, "4 members", 300, () -> group.stable(job.group(), 4, job.in(), partitions));
    long stableMs = System.currentTimeMillis();
    // Every task, moved ones included, emits again after the last rebalance: a moved task is
    // back only once its new owner has restored its stores.
    await(fleet, "every task emitting after the rebalance", 300,
        () -> watch.allEmittedAfter(stableMs));
    Thread.sleep(5_000);
    Set<Integer> stayed = stayed(ownersBefore, watch);
    Gap gap = gaps(watch, fleet, System.currentTimeMillis(), stayed);
    System.out.printf(Locale.ROOT, "round %d %s join (%s job): longest gap of the %d tasks that "
            + "stayed %s; steady running before: %s; %d tasks changed owner%n",
        round, system, kind, stayed.size(), gap, baselineGap, partitions - stayed.size());
    add(system + "_join_" + kind + "_gap_ms", gap.ms());
    add(system + "_join_" + kind + "_input_gap_ms", gap.inputMs());
    add(system + "_join_" + kind + "_latency_ms", gap.latencyMs());
    add(system + "_join_" + kind + "_gc_ms", gap.gcMs());
    add(system + "_steady_" + kind + "_gc_ms", baselineGap.gcMs());
    add(system + "_steady_" + kind + "_gap_ms", baselineGap.ms());
    add(system + "_steady_" + kind + "_input_gap_ms", baselineGap.inputMs());
    add(system + "_steady_" + kind + "_latency_ms", baselineGap.latencyMs());
    add(system + "_join_" + kind + "_moved", partitions - stayed.size());
  }

  /**
   * The longest gap of any task that kept its owner over the next 5 s of running with no process
   * joining or leaving (the commit's pause). A task that moved is left out: after a failover a
   * group may still be moving tasks whose warm-up copies caught up, and a move's gap is not a
   * pause of the loop.
   */
  private Gap steadyGap(OutputWatch watch, Fleet fleet) throws Exception {
    int[] ownersBefore = watch.owners();
    long fromMs = System.currentTimeMillis();
    watch.startGaps(fromMs);
    Thread.sleep(5_000); // a benchmark's steady window, not a test's synchronisation
    Set<Integer> stayed = stayed(ownersBefore, watch);
    if (stayed.size() < partitions) {
      System.out.printf(Locale.ROOT, "(%d task(s) moved in the steady window: left out of its "
          + "gap)%n", partitions - stayed.size());
    }
    return gaps(watch, fleet, fromMs + 5_000, stayed);
  }

  /** The tasks with the same emitter at the start of the gap window as now, and throughout. */
  private Set<Integer> stayed(int[] ownersBefore, OutputWatch watch) {
    int[] ownersAfter = watch.owners();
    Set<Integer> stayed = new HashSet<>();
    for (int t = 0; t < partitions; t++) {
      if (ownersBefore[t] == ownersAfter[t] && !watch.movedInWindow(t)) {
        stayed.add(t);
      }
    }
    return stayed;
  }

  /**
   * A window's longest gap between two emissions of one task, how far apart those two records'
   * inputs were written (the part of the gap the input had already), and the longest time any
   * record took from its writing to its emission.
   */
  record Gap(long ms, long inputMs, long latencyMs, int task, long endMs, int pid, long gcMs) {
    @Override
    public String toString() {
      return ms + " ms (input " + inputMs + " ms apart, longest latency " + latencyMs + " ms; task "
          + task + " of pid " + pid + ", ended " + LocalTime.ofInstant(Instant.ofEpochMilli(endMs),
              ZoneId.systemDefault()) + (gcMs < 0 ? "" : ", GC pauses of that process in it "
              + gcMs + " ms") + ")";
    }
  }

  /** Ends the gap window at {@code toMs}, lets the reader catch up, returns the longest gap. */
  private static Gap gaps(OutputWatch watch, Fleet fleet, long toMs, Set<Integer> tasks)
      throws Exception {
    watch.endGaps(toMs);
    Thread.sleep(1_500); // emissions before toMs that the reader has not read yet
    long[] gaps = watch.maxGaps();
    long[] latencies = watch.maxLatencies();
    int worst = -1;
    long latency = 0;
    for (int t = 0; t < gaps.length; t++) {
      if (tasks == null || tasks.contains(t)) {
        worst = worst < 0 || gaps[t] > gaps[worst] ? t : worst;
        latency = Math.max(latency, latencies[t]);
      }
    }
    if (worst < 0) {
      return new Gap(0, 0, 0, -1, 0, 0, -1);
    }
    long endMs = watch.maxGapEnds()[worst];
    int pid = watch.owners()[worst];
    return new Gap(gaps[worst], watch.inputGapsAtMax()[worst], latency, worst, endMs, pid,
        fleet.gcWithin(pid, endMs - gaps[worst], endMs));
  }

  private void leave(String system, int round, boolean join) throws Exception {
    JobSpec job = job("leave", system, round, false);
    try (Feeder feeder = new Feeder(bootstrap, job.in(), partitions, keys);
        OutputWatch watch = new OutputWatch(bootstrap, job.out(), partitions);
        Fleet fleet = fleet(system, job, dir.resolve(job.group()))) {
      feeder.start(rate);
      for (String label : List.of("a", "b", "c")) {
        fleet.start(label);
      }
      // Caught up too: the processes started behind a feed that was already running, and the
      // join's steady window would otherwise time the catching up (2 s of latency, measured).
      await(fleet, "3 processes hold every task, caught up", 300,
          () -> group.stable(job.group(), 3, job.in(), partitions)
              && watch.allEmittedWithin(1_000) && owners(watch) == 3
              && watch.allCaughtUpWithin(500));
      if (join) {
        join(system, round, "pass", job, fleet, watch, "d");
        await(fleet, "4 processes hold every task", 300,
            () -> group.stable(job.group(), 4, job.in(), partitions)
                && watch.allEmittedWithin(1_000) && owners(watch) == 4);
      }
      takeover(system, round, "leave", fleet, watch, "b", false);
    }
  }

  /**
   * A 4th process joins 3 that hold {@code stateBytes} of state (written to the changelog before
   * the start, restored by the 3): the longest gap between two emissions of any task, moved ones
   * included, from the join until the new process holds its share of the tasks (Millrace moves
   * them once warmed up) or {@code windowMs} passed (Kafka Streams' HighAvailabilityTaskAssignor
   * moves them at a probing rebalance, 10 min by default), plus 5 s.
   */
  private void scaleUp(String system, int round, long stateBytes, long windowMs)
      throws Exception {
    JobSpec job = job("scale-up", system, round, true);
    String changelog = job.group() + "-counts-changelog"; // both systems' name for it
    group.createCompacted(changelog, partitions);
    long t0 = System.nanoTime();
    long records = StateFill.fill(bootstrap, changelog, partitions, p -> true, stateBytes);
    System.out.printf(Locale.ROOT, "round %d %s scale-up: %,d state records (%,d MB) in %s "
            + "(%.1f s)%n", round, system, records, stateBytes >> 20, changelog,
        (System.nanoTime() - t0) / 1e9);
    try (Feeder feeder = new Feeder(bootstrap, job.in(), partitions, keys);
        OutputWatch watch = new OutputWatch(bootstrap, job.out(), partitions);
        Fleet fleet = fleet(system, job, dir.resolve(job.group()))) {
      feeder.start(rate);
      long started = System.currentTimeMillis();
      for (String label : List.of("a", "b", "c")) {
        fleet.start(label);
      }
      await(fleet, "3 processes restored the state and hold every task", 900,
          () -> group.stable(job.group(), 3, job.in(), partitions)
              && watch.allEmittedWithin(1_000) && owners(watch) == 3);
      System.out.printf(Locale.ROOT, "round %d %s scale-up: 3 processes running after %,d ms%n",
          round, system, System.currentTimeMillis() - started);
      Gap baselineGap = steadyGap(watch, fleet);

      int[] ownersBefore = watch.owners();
      long joinMs = System.currentTimeMillis();
      watch.startGaps(joinMs);
      fleet.start("d");
      long joiner = fleet.pid("d");
      int share = partitions / 4;
      await(fleet, "the new process holds " + share + " tasks, or " + windowMs + " ms passed",
          windowMs / 1000 + 300, () -> watch.tasksOf(joiner).size() >= share
              && watch.allEmittedWithin(1_000)
              || System.currentTimeMillis() > joinMs + windowMs);
      long balancedMs = watch.tasksOf(joiner).size() >= share
          ? System.currentTimeMillis() - joinMs : -1;
      Thread.sleep(5_000);
      Gap gap = gaps(watch, fleet, System.currentTimeMillis(), null);
      int[] ownersAfter = watch.owners();
      int moved = 0;
      for (int t = 0; t < partitions; t++) {
        moved += ownersBefore[t] == ownersAfter[t] ? 0 : 1;
      }
      System.out.printf(Locale.ROOT, "round %d %s scale-up: longest gap of any task %s; "
              + "steady running before: %s; %d tasks changed owner%s%n", round,
          system, gap, baselineGap, moved,
          balancedMs < 0 ? " (its share not reached within " + windowMs + " ms)"
              : ", its share reached " + balancedMs + " ms after it started");
      add(system + "_scale_up_gap_ms", gap.ms());
      add(system + "_scale_up_steady_gap_ms", baselineGap.ms());
      add(system + "_scale_up_moved", moved);
      if (balancedMs >= 0) {
        add(system + "_scale_up_balanced_ms", balancedMs);
      }
    }
  }

  /**
   * Millrace only: 2 processes share the tasks; one task's changelog holds {@code stateBytes}
   * (written before the start, after the processes restored what little they had), every other
   * task has a backlog of input. The process that holds the big task is stopped: the other one
   * takes its tasks, restoring the big one's store beside its running tasks. The figure is the
   * other tasks' output rate while the restore runs over their rate in the 10 s after it ended
   * (the same process and tasks, nothing restoring).
   */
  /** The restore-beside scenario's input, filled once and read from the start by every round. */
  private String besideInput;

  private void restoreBeside(int round, int partitions, long stateBytes, long backlog)
      throws Exception {
    int big = 0; // task 0's store is the big one; it gets only a trickle of input
    if (besideInput == null) {
      besideInput = "so-beside-in-" + UUID.randomUUID().toString().substring(0, 6);
      group.create(besideInput, partitions);
      long t0 = System.nanoTime();
      // Few keys: a commit writes each key's count once to the changelog, so the other tasks
      // that move with the big one have next to nothing to restore, and the big one is the
      // restore.
      try (Feeder feeder = Feeder.bulk(bootstrap, besideInput, partitions, 1_000)) {
        feeder.fill(backlog, p -> p != big);
      }
      System.out.printf(Locale.ROOT, "restore-beside input: %,d records for tasks other than %d "
          + "in %s (%.1f s)%n", backlog, big, besideInput, (System.nanoTime() - t0) / 1e9);
    }
    String id = "so-restore-beside-" + round + "-" + UUID.randomUUID().toString().substring(0, 6);
    group.create(id + "-out", partitions);
    JobSpec job = new JobSpec(id, bootstrap, besideInput, id + "-out", true, sessionMs, 0, false);
    String changelog = job.group() + "-counts-changelog";
    group.createCompacted(changelog, partitions);
    try (Feeder feeder = new Feeder(bootstrap, job.in(), partitions, 1_000);
        OutputWatch watch = new OutputWatch(bootstrap, job.out(), partitions);
        Fleet fleet = fleet("millrace", job, dir.resolve(job.group()))) {
      feeder.start(partitions * 10L); // a trickle, so the big task emits now and then
      fleet.start("a");
      fleet.start("b");
      await(fleet, "2 processes hold every task", 300,
          () -> group.stable(job.group(), 2, job.in(), partitions)
              && watch.allEmittedWithin(1_000) && owners(watch) == 2);
      int[] owners = watch.owners();
      String holder = owners[big] == fleet.pid("a") ? "a" : "b";
      String stays = holder.equals("a") ? "b" : "a";
      long t0 = System.nanoTime();
      long records = StateFill.fill(bootstrap, changelog, partitions, p -> p == big, stateBytes);
      System.out.printf(Locale.ROOT, "round %d restore-beside: %,d state records (%,d MB) for "
              + "task %d (%.1f s)%n", round, records, stateBytes >> 20, big,
          (System.nanoTime() - t0) / 1e9);
      Thread.sleep(5_000); // both processes busy on the backlog: past their JIT warm-up

      long stopMs = System.currentTimeMillis();
      watch.watchTakeover(stopMs, fleet.pid(holder));
      long survivor = fleet.pid(stays);
      fleet.stop(holder); // its last commit and leave: the other process takes its tasks at once
      long w0 = group.written(job.out(), partitions, p -> p != big);
      long s0 = System.nanoTime();
      // Task 0 emits again once its store is restored on the survivor.
      await(fleet, "task " + big + " emits again after its restore", 900,
          () -> watch.firstAfter(big) > 0);
      long w1 = group.written(job.out(), partitions, p -> p != big);
      long s1 = System.nanoTime();
      Thread.sleep(10_000); // nothing restores: the same tasks on the same process
      long w2 = group.written(job.out(), partitions, p -> p != big);
      long s2 = System.nanoTime();
      double during = (w1 - w0) / ((s1 - s0) / 1e9);
      double after = (w2 - w1) / ((s2 - s1) / 1e9);
      if (group.written(job.in(), partitions, p -> p != big) - w2 < backlog / 20) {
        System.out.println("warning: the backlog nearly ran out: raise --beside-records");
      }
      System.out.printf(Locale.ROOT, "round %d restore-beside: the other %d tasks %,.0f "
              + "records/s while task %d restored (%,d ms), %,.0f records/s after: %.3f "
              + "(survivor pid %d)%n", round, partitions - 1, during, big,
          (s1 - s0) / 1_000_000, after, during / after, survivor);
      add("restore_beside_fraction", during / after);
      add("restore_beside_restore_ms", (s1 - s0) / 1e6);
      add("restore_beside_during_per_sec", during);
      add("restore_beside_after_per_sec", after);
    }
  }

  private String costInput;

  private void cost(String system, int round, long records, long warmupMs, long windowMs)
      throws Exception {
    if (costInput == null) {
      costInput = "so-cost-in-" + UUID.randomUUID().toString().substring(0, 6);
      group.create(costInput, partitions);
      long t0 = System.nanoTime();
      try (Feeder feeder = new Feeder(bootstrap, costInput, partitions, 120_000)) {
        feeder.fill(records);
      }
      System.out.printf(Locale.ROOT, "cost input: %,d records in %s (%.1f s)%n", records,
          costInput, (System.nanoTime() - t0) / 1e9);
    }
    // The order turns each round (1-2-3, 2-3-1, 3-1-2): whoever runs first meets the machine
    // just after the fill, or after another run's processes.
    double[] rate = new double[4];
    for (int i = 0; i < 3; i++) {
      int processes = 1 + (i + round - 1) % 3;
      String id = "so-cost-" + system.replace('_', '-') + "-" + processes + "-" + round + "-"
          + UUID.randomUUID().toString().substring(0, 6);
      group.create(id + "-out", partitions);
      JobSpec job = new JobSpec(id, bootstrap, costInput, id + "-out", false, sessionMs, 0, false);
      try (Fleet fleet = fleet(system, job, dir.resolve(id))) {
        for (int p = 0; p < processes; p++) {
          fleet.start("p" + p);
        }
        int n = processes;
        await(fleet, n + " processes hold every task", 300,
            () -> group.stable(id, n, costInput, partitions));
        // Past the JIT's warm-up: k JVMs compiling at once on two cores take seconds to get there.
        Thread.sleep(warmupMs);
        long w0 = group.written(id + "-out", partitions);
        long t0 = System.nanoTime();
        Thread.sleep(windowMs);
        long w1 = group.written(id + "-out", partitions);
        rate[processes] = (w1 - w0) / ((System.nanoTime() - t0) / 1e9);
        if (w1 >= records * 0.98) {
          System.out.println("warning: the input ran out inside the window: raise --cost-records");
        }
        System.out.printf(Locale.ROOT, "round %d %s cost: %d process(es) %,.0f records/s%n",
            round, system, processes, rate[processes]);
      }
    }
    String prefix = system.equals("millrace") ? "cost_" : system + "_cost_";
    for (int processes = 1; processes <= 3; processes++) {
      add(prefix + processes + "_per_sec", rate[processes]);
      add(prefix + processes + "_fraction", rate[processes] / rate[1]);
    }
    System.out.printf(Locale.ROOT, "round %d %s cost: 2 processes %.3f of one, 3 processes %.3f%n",
        round, system, rate[2] / rate[1], rate[3] / rate[1]);
  }

  private static int owners(OutputWatch watch) {
    return (int) Arrays.stream(watch.owners()).distinct().count();
  }

  void add(String name, double value) {
    figures.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
  }

  double median(String name) {
    List<Double> values = figures.get(name);
    // A phase a run could not see (NaN) is left out rather than sorted to the top.
    double[] seen = values == null ? new double[0]
        : values.stream().mapToDouble(Double::doubleValue).filter(v -> !Double.isNaN(v)).toArray();
    return seen.length == 0 ? Double.NaN : Stats.median(seen);
  }

  private void report(int runs) {
    System.out.printf(Locale.ROOT, "machine: %d cores, JVM %s; session timeout %d ms, %d tasks, "
            + "%,d records/s fed, %s; medians of %d runs%n",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), sessionMs,
        partitions, rate, exactlyOnce ? "exactly-once" : "at-least-once", runs);
    if (figures.containsKey("millrace_failover_ms")) {
      System.out.printf(Locale.ROOT, "RESULT scale-out scenario=failover standbys=" + standbys
              + " millrace_ms=%.0f kafka_streams_ms=%.0f ratio=%.2f detect_ms=%.0f "
              + "rebalance_ms=%.0f restore_ms=%.0f first_output_ms=%.0f "
              + "kafka_streams_detect_ms=%.0f kafka_streams_rebalance_ms=%.0f "
              + "kafka_streams_restore_ms=%.0f kafka_streams_first_output_ms=%.0f keys=%d%n",
          median("millrace_failover_ms"), median("kafka_streams_failover_ms"),
          median("millrace_failover_ms") / median("kafka_streams_failover_ms"),
          median("millrace_failover_detect_ms"), median("millrace_failover_rebalance_ms"),
          median("millrace_failover_restore_ms"), median("millrace_failover_first_output_ms"),
          median("kafka_streams_failover_detect_ms"),
          median("kafka_streams_failover_rebalance_ms"), median("kafka_streams_failover_restore_ms"),
          median("kafka_streams_failover_first_output_ms"), keys);
    }
    for (String kind : List.of("count", "pass")) {
      if (figures.containsKey("millrace_join_" + kind + "_gap_ms")) {
        System.out.printf(Locale.ROOT, "RESULT scale-out scenario=join job=%s "
                + "millrace_max_gap_ms=%.0f kafka_streams_max_gap_ms=%.0f "
                + "millrace_steady_gap_ms=%.0f kafka_streams_steady_gap_ms=%.0f "
                + "millrace_moved=%.0f kafka_streams_moved=%.0f "
                + "millrace_input_gap_ms=%.0f kafka_streams_input_gap_ms=%.0f "
                + "millrace_latency_ms=%.0f kafka_streams_latency_ms=%.0f "
                + "millrace_steady_latency_ms=%.0f kafka_streams_steady_latency_ms=%.0f "
                + "millrace_gc_in_max_gap_ms=%.0f kafka_streams_gc_in_max_gap_ms=%.0f "
                + "millrace_gc_in_steady_gap_ms=%.0f kafka_streams_gc_in_steady_gap_ms=%.0f%n",
            kind,
            median("millrace_join_" + kind + "_gap_ms"),
            median("kafka_streams_join_" + kind + "_gap_ms"),
            median("millrace_steady_" + kind + "_gap_ms"),
            median("kafka_streams_steady_" + kind + "_gap_ms"),
            median("millrace_join_" + kind + "_moved"),
            median("kafka_streams_join_" + kind + "_moved"),
            median("millrace_join_" + kind + "_input_gap_ms"),
            median("kafka_streams_join_" + kind + "_input_gap_ms"),
            median("millrace_join_" + kind + "_latency_ms"),
            median("kafka_streams_join_" + kind + "_latency_ms"),
            median("millrace_steady_" + kind + "_latency_ms"),
            median("kafka_streams_steady_" + kind + "_latency_ms"),
            median("millrace_join_" + kind + "_gc_ms"),
            median("kafka_streams_join_" + kind + "_gc_ms"),
            median("millrace_steady_" + kind + "_gc_ms"),
            median("kafka_streams_steady_" + kind + "_gc_ms"));
      }
    }
    if (figures.containsKey("millrace_leave_ms")) {
      System.out.printf(Locale.ROOT, "RESULT scale-out scenario=leave millrace_ms=%.0f "
              + "kafka_streams_ms=%.0f ratio=%.2f detect_ms=%.0f rebalance_ms=%.0f start_ms=%.0f "
              + "first_output_ms=%.0f kafka_streams_detect_ms=%.0f%n",
          median("millrace_leave_ms"), median("kafka_streams_leave_ms"),
          median("millrace_leave_ms") / median("kafka_streams_leave_ms"),
          median("millrace_leave_detect_ms"), median("millrace_leave_rebalance_ms"),
          median("millrace_leave_restore_ms"), median("millrace_leave_first_output_ms"),
          median("kafka_streams_leave_detect_ms"));
    }
    if (figures.containsKey("millrace_scale_up_gap_ms")) {
      System.out.printf(Locale.ROOT, "RESULT scale-out scenario=scale-up "
              + "millrace_max_gap_ms=%.0f kafka_streams_max_gap_ms=%.0f "
              + "millrace_steady_gap_ms=%.0f kafka_streams_steady_gap_ms=%.0f "
              + "millrace_moved=%.0f kafka_streams_moved=%.0f millrace_balanced_ms=%.0f "
              + "kafka_streams_balanced_ms=%.0f%n",
          median("millrace_scale_up_gap_ms"), median("kafka_streams_scale_up_gap_ms"),
          median("millrace_scale_up_steady_gap_ms"),
          median("kafka_streams_scale_up_steady_gap_ms"), median("millrace_scale_up_moved"),
          median("kafka_streams_scale_up_moved"), median("millrace_scale_up_balanced_ms"),
          median("kafka_streams_scale_up_balanced_ms"));
    }
    if (figures.containsKey("restore_beside_fraction")) {
      System.out.printf(Locale.ROOT, "RESULT scale-out scenario=restore-beside "
              + "fraction_of_undisturbed=%.3f restore_ms=%.0f during_per_sec=%.0f "
              + "after_per_sec=%.0f%n", median("restore_beside_fraction"),
          median("restore_beside_restore_ms"), median("restore_beside_during_per_sec"),
          median("restore_beside_after_per_sec"));
    }
    for (int processes = 2; processes <= 3; processes++) {
      if (figures.containsKey("cost_" + processes + "_fraction")) {
        // fraction_of_one: the median of each round's own ratio (both sides in one round);
        // ratio_of_medians beside it, as the rates move a lot from round to round.
        System.out.printf(Locale.ROOT, "RESULT scale-out scenario=cost processes=%d "
                + "fraction_of_one=%.3f ratio_of_medians=%.3f records_per_sec=%.0f "
                + "one_process_records_per_sec=%.0f kafka_streams_fraction_of_one=%.3f "
                + "kafka_streams_records_per_sec=%.0f "
                + "kafka_streams_one_process_records_per_sec=%.0f%n",
            processes, median("cost_" + processes + "_fraction"),
            median("cost_" + processes + "_per_sec") / median("cost_1_per_sec"),
            median("cost_" + processes + "_per_sec"), median("cost_1_per_sec"),
            median("kafka_streams_cost_" + processes + "_fraction"),
            median("kafka_streams_cost_" + processes + "_per_sec"),
            median("kafka_streams_cost_1_per_sec"));
      }
    }
  }

  /** Polls {@code condition} every 50 ms; fails naming {@code what} after {@code seconds}. */
  static void await(Fleet fleet, String what, long seconds, Callable<Boolean> condition)
      throws Exception {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (!condition.call()) {
      fleet.checkAlive();
      if (System.nanoTime() > deadline) {
        StringBuilder logs = new StringBuilder();
        for (String label : fleet.labels()) {
          logs.append("\n--- ").append(label).append(":\n").append(fleet.tail(label));
        }
        throw new IllegalStateException(fleet.system() + ": timed out after " + seconds
            + " s waiting until " + what + logs);
      }
      Thread.sleep(50);
    }
  }
}
