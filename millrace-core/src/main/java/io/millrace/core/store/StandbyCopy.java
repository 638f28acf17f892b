package io.millrace.core.store;

import io.millrace.api.Envelope;
import io.millrace.api.metrics.Gauge;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.system.BatchSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One store of one task, kept as a standby copy ({@link StandbyReplicas}): its engine, what of
 * the changelog it holds and has marked on its files, and the sink its changelog's batches reach
 * (one engine write per batch). The state updater's thread reads and writes it; gauges read
 * {@link #lag} from any thread.
 */
final class StandbyCopy implements BatchSink {
  final int task;
  final StoreSpec spec;
  final StorageEngine engine;
  final Path dir;
  /** The reader of its changelog and its index there (-1: not read). */
  ChangelogReader reader;
  int index = -1;
  Gauge lagGauge;
  /** The copy in an unreadable record's error, made once instead of at every batch. */
  private final String label;
  /** The changelog offset the engine holds up to (-1: none); gauges read it. */
  volatile long applied;
  /** The offset the files were last marked with. */
  private long marked;
  /** The changelog's head (its next offset) as last seen, or -1. */
  private volatile long head = -1;
  /** Nanoseconds spent writing batches to the engine, for pacing. */
  long applyNanos;
  // Scratch for one batch, reused.
  private final List<byte[]> keys = new ArrayList<>();
  private final List<byte[]> values = new ArrayList<>();

  StandbyCopy(int task, StoreSpec spec, StorageEngine engine, Path dir, long applied) {
    this.task = task;
    this.spec = spec;
    this.engine = engine;
    this.dir = dir;
    this.label = spec.name() + " (standby copy of task " + task + ")";
    this.applied = applied;
    this.marked = applied;
  }

  /** Changelog records not applied yet (-1 while the head is not known). */
  long lag() {
    long h = head;
    return h < 0 ? -1 : Math.max(0, h - applied - 1);
  }

  String gaugeName() {
    return "task-" + task + "/" + spec.name() + "-lag";
  }

  /** Syncs the engine and marks its files with the offset it holds, if that moved. */
  void mark() {
    if (applied >= 0 && applied != marked) {
      engine.sync(); // the files hold what the mark will claim before it claims it
      LocalOffsetFile.write(dir, applied);
      marked = applied;
    }
  }

  /** Marks and closes the engine (closed even if the mark fails). */
  void closeMarked() {
    try {
      mark();
    } finally {
      engine.close();
    }
  }

  @Override
  public void accept(int index, Envelope[] messages, int from, int count) {
    if (count == 0) {
      return;
    }
    keys.clear();
    values.clear();
    ChangelogRestorer.collect(label, messages, from, count, Long.MAX_VALUE, keys, values);
    long started = System.nanoTime();
    engine.write(keys, values);
    applyNanos += System.nanoTime() - started;
    applied = Math.max(applied, messages[from + count - 1].offset());
  }

  @Override
  public void endOfStream(int index) {}

  @Override
  public void head(int index, long upcomingOffset) {
    head = upcomingOffset;
  }

  @Override
  public void position(int index, long nextOffset) {
    if (nextOffset - 1 > applied) {
      // Everything before the position was handed over: what is left is markers, aborted
      // records or compacted gaps, which the copy holds as much as the active does.
      applied = nextOffset - 1;
    }
  }

  /** The copies for a log line: each store at the changelog offset it holds. */
  static String describe(List<StandbyCopy> copies) {
    List<String> parts = new ArrayList<>();
    for (StandbyCopy c : copies) {
      parts.add(c.spec.name() + " at changelog offset " + c.applied);
    }
    return parts.isEmpty() ? "no persistent store" : String.join(", ", parts);
  }
}
