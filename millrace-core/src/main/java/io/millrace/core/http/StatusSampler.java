package io.millrace.core.http;

import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.core.loop.PartitionState;
import io.millrace.core.loop.RunLoop;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each partition's position and lag, sampled once a second for the status page's charts: the
 * last five minutes, kept here rather than in the page so that a page opened late shows them.
 * The loop is not asked anything: its partitions are published for other threads to read.
 */
final class StatusSampler {
  static final int SAMPLES = 300;
  private final List<RunLoop> loops;
  /** By partition instance: a task that comes back is a new instance, with a new history. */
  private Map<PartitionState, History> histories = new IdentityHashMap<>();

  StatusSampler(List<RunLoop> loops) {
    this.loops = loops;
  }

  /** One partition's samples, oldest first, in a ring. */
  static final class History {
    final long[] times = new long[SAMPLES];
    final long[] offsets = new long[SAMPLES];
    final long[] lags = new long[SAMPLES];
    int next;
    int size;

    void add(long millis, long offset, long lag) {
      times[next] = millis;
      offsets[next] = offset;
      lags[next] = lag;
      next = (next + 1) % SAMPLES;
      size = Math.min(size + 1, SAMPLES);
    }

    /** Messages per second between consecutive samples, oldest first (size - 1 of them). */
    double[] rates() {
      double[] rates = new double[Math.max(0, size - 1)];
      for (int i = 1; i < size; i++) {
        int at = index(i);
        int before = index(i - 1);
        long dt = times[at] - times[before];
        rates[i - 1] = dt <= 0 ? 0 : (offsets[at] - offsets[before]) * 1000.0 / dt;
      }
      return rates;
    }

    long[] lagHistory() {
      long[] out = new long[size];
      for (int i = 0; i < size; i++) {
        out[i] = lags[index(i)];
      }
      return out;
    }

    private int index(int i) {
      return (next - size + i + SAMPLES) % SAMPLES;
    }
  }

  /** Takes one sample of every partition the containers hold now; forgets those gone. */
  synchronized void sample(long nowMillis) {
    Map<PartitionState, History> seen = new IdentityHashMap<>();
    for (RunLoop loop : loops) {
      for (PartitionState p : loop.partitions()) {
        History h = histories.computeIfAbsent(p, k -> new History());
        long last = p.lastOffset();
        h.add(nowMillis, last == CheckpointStore.NONE ? p.progressStart() : last + 1, p.lag());
        seen.put(p, h);
      }
    }
    histories = seen;
  }

  /** A partition a container holds now, with its samples (none yet for one just taken). */
  record Current(int container, PartitionState partition, double[] rates, long[] lags) {}

  /** Every partition the containers hold now, by container, with what was sampled of it. */
  synchronized List<Current> current() {
    List<Current> out = new ArrayList<>();
    for (int c = 0; c < loops.size(); c++) {
      for (PartitionState p : loops.get(c).partitions()) {
        History h = histories.get(p);
        out.add(new Current(c, p, h == null ? new double[0] : h.rates(),
            h == null ? new long[0] : h.lagHistory()));
      }
    }
    return out;
  }
}
