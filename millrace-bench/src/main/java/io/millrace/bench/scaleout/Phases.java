package io.millrace.bench.scaleout;

/**
 * A failover split into its parts, all from the kill: until a survivor learnt of the rebalance,
 * until the survivors had their new tasks, until those tasks' stores were restored and the tasks
 * started, and until the last moved task's first output. NaN where a part could not be seen.
 *
 * @param detectMs kill to the first survivor's rebalance start
 * @param rebalanceMs to the last survivor that took a moved task receiving its assignment
 * @param restoreMs to the last of them having restored and started its new tasks
 */
record Phases(double detectMs, double rebalanceMs, double restoreMs) {
  static final Phases UNKNOWN = new Phases(Double.NaN, Double.NaN, Double.NaN);

  /** What is left of {@code totalMs} after the three parts: the first output. */
  double firstOutputMs(double totalMs) {
    return totalMs - detectMs - rebalanceMs - restoreMs;
  }
}
