package io.millrace.bench.support;

import java.util.Arrays;

/** Medians of repeated runs: the machine is shared and noisy, so a single best proves nothing. */
public final class Stats {
  private Stats() {}

  /** The median of the values. */
  public static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The smallest value. */
  public static double min(double[] values) {
    return Arrays.stream(values).min().orElse(Double.NaN);
  }

  /** The largest value. */
  public static double max(double[] values) {
    return Arrays.stream(values).max().orElse(Double.NaN);
  }
}
