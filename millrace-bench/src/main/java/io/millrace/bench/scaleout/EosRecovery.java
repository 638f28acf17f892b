package io.millrace.bench.scaleout;

import java.util.Locale;
import java.util.UUID;

/**
 * The {@code eos-recovery} scenario ({@code bench kafka-eos-recovery}): one process runs the
 * changelogged count under exactly-once (Millrace's {@code exactly-once}, Kafka Streams'
 * {@code exactly_once_v2}, each with its default 100 ms commit) holding {@code stateBytes} of
 * state, written to its changelog before the start and restored by the process; it then counts a
 * steady feed for {@code runMs}, is killed with SIGKILL and started again on the same state
 * directory once the group has dropped it (the session timeout, so the restart's rebalance waits
 * for nobody). The figure is the time from the restart until it held every task with its stores
 * ready, and the changelog records it restored to get there: Millrace restarts from its local
 * files plus the changelog's tail; Kafka Streams 4.3 wipes a task's store after a crash under
 * exactly-once and restores the whole changelog.
 */
final class EosRecovery {
  private final ScaleOutBench bench;
  private final long stateBytes;
  private final long runMs;

  EosRecovery(ScaleOutBench bench, long stateBytes, long runMs) {
    this.bench = bench;
    this.stateBytes = stateBytes;
    this.runMs = runMs;
  }

  void run(String system, int round) throws Exception {
    int partitions = bench.partitions;
    String id = "so-eos-recovery-" + system.replace('_', '-') + "-" + round + "-"
        + UUID.randomUUID().toString().substring(0, 6);
    Group group = bench.group;
    group.create(id + "-in", partitions);
    group.create(id + "-out", partitions);
    JobSpec job = new JobSpec(id, bench.bootstrap, id + "-in", id + "-out", true, bench.sessionMs,
        0, true);
    String changelog = id + "-counts-changelog"; // both systems' name for it
    group.createCompacted(changelog, partitions);
    long t0 = System.nanoTime();
    long records = StateFill.fill(bench.bootstrap, changelog, partitions, p -> true, stateBytes);
    System.out.printf(Locale.ROOT, "round %d %s eos-recovery: %,d state records (%,d MB) in %s "
            + "(%.1f s)%n", round, system, records, stateBytes >> 20, changelog,
        (System.nanoTime() - t0) / 1e9);
    try (Feeder feeder = new Feeder(bench.bootstrap, job.in(), partitions, bench.keys);
        OutputWatch watch = new OutputWatch(bench.bootstrap, job.out(), partitions);
        Fleet fleet = bench.fleet(system, job, bench.dir.resolve(id))) {
      feeder.start(bench.rate);
      long startMs = System.currentTimeMillis();
      fleet.start("a");
      ScaleOutBench.await(fleet, "the process restored the state and runs every task", 900,
          () -> group.stable(id, 1, job.in(), partitions) && watch.allEmittedWithin(1_000));
      Readiness first = fleet.readiness("a", startMs);
      System.out.printf(Locale.ROOT, "round %d %s eos-recovery: first start ready after %,d ms "
              + "(restore %,d ms, %,d records)%n", round, system, first.readyAtMs() - startMs,
          first.restoreMs(), first.restoredRecords());
      // Counting under exactly-once: commits every 100 ms, and Millrace marks its local files
      // with the changelog offset they hold at most every 10 s.
      Thread.sleep(runMs);
      long counted = group.written(changelog, partitions) - records;

      long victim = fleet.pid("a");
      fleet.kill("a");
      ScaleOutBench.await(fleet, "the group dropped the killed process (session timeout)",
          bench.sessionMs / 1000 + 120, () -> group.members(id) == 0);
      long restartMs = System.currentTimeMillis();
      watch.watchTakeover(restartMs, victim);
      fleet.start("a");
      ScaleOutBench.await(fleet, "every task emits again after the restart", 900,
          () -> allEmittedAgain(watch, partitions));
      long emittingMs = maxFirstAfter(watch, partitions) - restartMs;
      Readiness again = fleet.readiness("a", restartMs);
      long readyMs = again.readyAtMs() - restartMs;
      System.out.printf(Locale.ROOT, "round %d %s eos-recovery: after kill -9, ready %,d ms "
              + "after the restart (restore %,d ms, %,d of %,d changelog records), every task "
              + "emitting after %,d ms%n", round, system, readyMs, again.restoreMs(),
          again.restoredRecords(), records + counted, emittingMs);
      String prefix = system + "_eos_recovery";
      bench.add(prefix + "_ready_ms", again.readyAtMs() == 0 ? Double.NaN : readyMs);
      bench.add(prefix + "_restore_ms", again.restoreMs());
      bench.add(prefix + "_restored_records", again.restoredRecords());
      bench.add(prefix + "_emitting_ms", emittingMs);
      bench.add(prefix + "_first_ready_ms", first.readyAtMs() - startMs);
    }
  }

  private static boolean allEmittedAgain(OutputWatch watch, int tasks) {
    for (int t = 0; t < tasks; t++) {
      if (watch.firstAfter(t) == 0) {
        return false;
      }
    }
    return true;
  }

  private static long maxFirstAfter(OutputWatch watch, int tasks) {
    long max = 0;
    for (int t = 0; t < tasks; t++) {
      max = Math.max(max, watch.firstAfter(t));
    }
    return max;
  }

  void report() {
    System.out.printf(Locale.ROOT, "RESULT kafka-eos-recovery millrace_ready_ms=%.0f "
            + "kafka_streams_ready_ms=%.0f ratio=%.3f millrace_restored_records=%.0f "
            + "kafka_streams_restored_records=%.0f millrace_restore_ms=%.0f "
            + "kafka_streams_restore_ms=%.0f millrace_emitting_ms=%.0f "
            + "kafka_streams_emitting_ms=%.0f millrace_first_start_ready_ms=%.0f "
            + "kafka_streams_first_start_ready_ms=%.0f state_mb=%d%n",
        bench.median("millrace_eos_recovery_ready_ms"),
        bench.median("kafka_streams_eos_recovery_ready_ms"),
        bench.median("millrace_eos_recovery_ready_ms")
            / bench.median("kafka_streams_eos_recovery_ready_ms"),
        bench.median("millrace_eos_recovery_restored_records"),
        bench.median("kafka_streams_eos_recovery_restored_records"),
        bench.median("millrace_eos_recovery_restore_ms"),
        bench.median("kafka_streams_eos_recovery_restore_ms"),
        bench.median("millrace_eos_recovery_emitting_ms"),
        bench.median("kafka_streams_eos_recovery_emitting_ms"),
        bench.median("millrace_eos_recovery_first_ready_ms"),
        bench.median("kafka_streams_eos_recovery_first_ready_ms"), stateBytes >> 20);
  }
}
