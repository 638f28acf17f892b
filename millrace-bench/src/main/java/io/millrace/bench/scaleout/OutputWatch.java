package io.millrace.bench.scaleout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a scale-out job's output from its start, uncommitted records included (Millrace writes its
 * output in transactions; what counts here is when a task emitted a record, not when its
 * transaction ended), and keeps per task: the last emission, who emitted it, the first emission
 * after a given moment by another process, and the longest gap between emissions inside a window.
 */
final class OutputWatch implements AutoCloseable {
  private final int tasks;
  private final long[] lastMs;
  private final int[] lastPid;
  private final long[] firstAfterMs;
  private final long[] maxGapMs;
  /** Each task's last record's input timestamp (the job passes its input's on). */
  private final long[] lastInputMs;
  /** For each task's longest gap: how far apart the two records' inputs were written. */
  private final long[] inputGapAtMaxMs;
  /** Each task's longest time from an input's writing to its emission, in the window. */
  private final long[] maxLatencyMs;
  /** When each task's longest gap ended (its second record's emission), to find it in logs. */
  private final long[] maxGapEndMs;
  /**
   * Whether each task's emitter changed inside the gap window: a task that moved away and back
   * has the same owner at both ends of it, but its gap is a move's, not a pause's.
   */
  private final boolean[] movedInWindow;
  private long total;
  private long afterMs = Long.MAX_VALUE;
  private int excludedPid;
  private long gapFromMs = Long.MAX_VALUE;
  private long gapToMs = Long.MAX_VALUE;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile RuntimeException failure;

  OutputWatch(String bootstrap, String topic, int tasks) {
    this.tasks = tasks;
    this.lastMs = new long[tasks];
    this.lastPid = new int[tasks];
    this.firstAfterMs = new long[tasks];
    this.maxGapMs = new long[tasks];
    this.lastInputMs = new long[tasks];
    this.inputGapAtMaxMs = new long[tasks];
    this.maxLatencyMs = new long[tasks];
    this.maxGapEndMs = new long[tasks];
    this.movedInWindow = new boolean[tasks];
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("enable.auto.commit", "false");
    p.put("max.poll.records", "5000");
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    List<TopicPartition> partitions = new ArrayList<>();
    for (int t = 0; t < tasks; t++) {
      partitions.add(new TopicPartition(topic, t));
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    thread = new Thread(() -> {
      try (consumer) {
        while (running) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
            byte[] v = r.value();
            if (v != null && v.length == Emission.BYTES) {
              seen(r.partition(), Emission.emittedMs(v), Emission.pid(v), r.timestamp());
            }
          }
        }
      } catch (RuntimeException e) {
        failure = e;
      }
    }, "output-watch-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  private synchronized void seen(int task, long ms, int pid, long inputMs) {
    total++;
    long previous = lastMs[task];
    if (ms >= gapFromMs && ms <= gapToMs) {
      if (previous > 0 && ms - previous > maxGapMs[task]) {
        maxGapMs[task] = ms - previous;
        inputGapAtMaxMs[task] = inputMs - lastInputMs[task];
        maxGapEndMs[task] = ms;
      }
      maxLatencyMs[task] = Math.max(maxLatencyMs[task], ms - inputMs);
      if (previous > 0 && pid != lastPid[task]) {
        movedInWindow[task] = true;
      }
    }
    if (ms > previous) {
      lastMs[task] = ms;
      lastInputMs[task] = inputMs;
    }
    lastPid[task] = pid;
    if (ms > afterMs && pid != excludedPid && firstAfterMs[task] == 0) {
      firstAfterMs[task] = ms;
    }
  }

  private void check() {
    if (failure != null) {
      throw new IllegalStateException("reading the output failed: " + failure, failure);
    }
  }

  /** Records read so far (re-deliveries included). */
  synchronized long total() {
    check();
    return total;
  }

  /** True when every task emitted within the last {@code ms}. */
  synchronized boolean allEmittedWithin(long ms) {
    check();
    long now = System.currentTimeMillis();
    return Arrays.stream(lastMs).allMatch(t -> t >= now - ms);
  }

  /**
   * True when every task's latest emission came at most {@code ms} after its input record was
   * written: the job has caught up with the backlog its start left, so a window measured from now
   * sees steady running, not the catching up.
   */
  synchronized boolean allCaughtUpWithin(long ms) {
    check();
    for (int t = 0; t < lastMs.length; t++) {
      if (lastMs[t] == 0 || lastMs[t] - lastInputMs[t] > ms) {
        return false;
      }
    }
    return true;
  }

  /** True when every task emitted after {@code ms}. */
  synchronized boolean allEmittedAfter(long ms) {
    check();
    return Arrays.stream(lastMs).allMatch(t -> t > ms);
  }

  /** Tasks whose latest emission came from {@code pid}. */
  synchronized Set<Integer> tasksOf(long pid) {
    Set<Integer> owned = new HashSet<>();
    for (int t = 0; t < tasks; t++) {
      if (lastPid[t] == pid) {
        owned.add(t);
      }
    }
    return owned;
  }

  /** The pid that last emitted for each task. */
  synchronized int[] owners() {
    return lastPid.clone();
  }

  /** From now on, note each task's first emission after {@code ms} by a process other than pid. */
  synchronized void watchTakeover(long ms, long pid) {
    afterMs = ms;
    excludedPid = (int) pid;
    Arrays.fill(firstAfterMs, 0);
  }

  /** The first emission noted by {@link #watchTakeover} for {@code task}, or 0 if none yet. */
  synchronized long firstAfter(int task) {
    check();
    return firstAfterMs[task];
  }

  /** Starts measuring each task's longest gap between emissions from {@code fromMs}. */
  synchronized void startGaps(long fromMs) {
    Arrays.fill(maxGapMs, 0);
    Arrays.fill(inputGapAtMaxMs, 0);
    Arrays.fill(maxLatencyMs, 0);
    Arrays.fill(maxGapEndMs, 0);
    Arrays.fill(movedInWindow, false);
    gapFromMs = fromMs;
    gapToMs = Long.MAX_VALUE;
  }

  /** Ends the gap window at {@code toMs}; emissions after it no longer count. */
  synchronized void endGaps(long toMs) {
    gapToMs = toMs;
  }

  /** Each task's longest gap in the window so far. */
  synchronized long[] maxGaps() {
    check();
    return maxGapMs.clone();
  }

  /**
   * For each task's longest gap, how far apart its two records were written to the input: a gap
   * the input had too is the feeder's (or the machine's), not the job's.
   */
  synchronized long[] inputGapsAtMax() {
    check();
    return inputGapAtMaxMs.clone();
  }

  /** When each task's longest gap ended (epoch ms). */
  synchronized long[] maxGapEnds() {
    check();
    return maxGapEndMs.clone();
  }

  /** Whether the task's emitter changed inside the gap window so far. */
  synchronized boolean movedInWindow(int task) {
    check();
    return movedInWindow[task];
  }

  /** Each task's longest time from an input record's writing to its emission, in the window. */
  synchronized long[] maxLatencies() {
    check();
    return maxLatencyMs.clone();
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
