package io.millrace.core.http;

import io.millrace.core.loop.PartitionState;
import io.millrace.core.loop.RunLoop;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each partition's position in messages and its lag, sampled once a second for the status page's
 * charts: the last five minutes, kept here rather than in the page so that a page opened late
 * shows them. The loop is not asked anything: its partitions are published for other threads to
 * read, and a consumer that counts messages (a file's) is read the same way.
 */
final class StatusSampler {
  static final int SAMPLES = 300;
  /** Samples the time left is judged from: the last ten seconds' pace. */
  static final int PACE_SAMPLES = 10;
  private final List<RunLoop> loops;
  private final MessageCounts counts;
  /** By partition instance: a task that comes back is a new instance, with a new history. */
  private Map<PartitionState, History> histories = new IdentityHashMap<>();

  StatusSampler(List<RunLoop> loops, MessageCounts counts) {
    this.loops = loops;
    this.counts = counts;
  }

  /** One partition's samples, oldest first, in a ring. */
  static final class History {
    final long[] times = new long[SAMPLES];
    final long[] messages = new long[SAMPLES];
    final long[] lags = new long[SAMPLES];
    int next;
    int size;

    void add(long millis, long position, long lag) {
      times[next] = millis;
      messages[next] = position;
      lags[next] = lag;
      next = (next + 1) % SAMPLES;
      size = Math.min(size + 1, SAMPLES);
    }

    /** Messages per second between consecutive samples, oldest first (size - 1 of them). */
    double[] rates() {
      double[] rates = new double[Math.max(0, size - 1)];
      for (int i = 1; i < size; i++) {
        rates[i - 1] = rate(i - 1, i);
      }
      return rates;
    }

    /** Messages per second over the last {@code intervals} intervals (fewer if not yet sampled). */
    double recentRate(int intervals) {
      int k = Math.min(intervals, size - 1);
      return k <= 0 ? 0 : rate(size - 1 - k, size - 1);
    }

    private double rate(int from, int to) {
      int a = index(from);
      int b = index(to);
      long dt = times[b] - times[a];
      return dt <= 0 ? 0 : (messages[b] - messages[a]) * 1000.0 / dt;
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
    for (int c = 0; c < loops.size(); c++) {
      for (PartitionState p : loops.get(c).partitions()) {
        History h = histories.computeIfAbsent(p, k -> new History());
        PartitionReading now = PartitionReading.of(p, counts.of(c, p));
        h.add(nowMillis, now.messages(), now.lag());
        seen.put(p, h);
      }
    }
    histories = seen;
  }

  /**
   * A partition a container holds now: what it reads now, and what was sampled of it (nothing yet
   * for one just taken).
   *
   * @param secondsLeft the time a bounded partition needs for its lag at the last ten seconds'
   *     pace, or -1 (unbounded, lag unknown, or no pace yet)
   */
  record Current(int container, PartitionState partition, PartitionReading reading,
      double[] rates, long[] lags, double secondsLeft) {}

  /** Every partition the containers hold now, by container, with what was sampled of it. */
  synchronized List<Current> current() {
    List<Current> out = new ArrayList<>();
    for (int c = 0; c < loops.size(); c++) {
      for (PartitionState p : loops.get(c).partitions()) {
        History h = histories.get(p);
        PartitionReading reading = PartitionReading.of(p, counts.of(c, p));
        out.add(new Current(c, p, reading, h == null ? new double[0] : h.rates(),
            h == null ? new long[0] : h.lagHistory(), secondsLeft(reading, h)));
      }
    }
    return out;
  }

  /** A partition read now, without its history (for a scrape). */
  record Live(int container, PartitionState partition, PartitionReading reading) {}

  /** Every partition the containers hold now, read now. */
  List<Live> live() {
    List<Live> out = new ArrayList<>();
    for (int c = 0; c < loops.size(); c++) {
      for (PartitionState p : loops.get(c).partitions()) {
        out.add(new Live(c, p, PartitionReading.of(p, counts.of(c, p))));
      }
    }
    return out;
  }

  private static double secondsLeft(PartitionReading reading, History h) {
    if (reading.progress() < 0 || reading.lag() < 0) {
      return -1;
    }
    if (reading.lag() == 0) {
      return 0;
    }
    double pace = h == null ? 0 : h.recentRate(PACE_SAMPLES);
    return pace <= 0 ? -1 : reading.lag() / pace;
  }
}
