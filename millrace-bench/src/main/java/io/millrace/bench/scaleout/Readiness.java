package io.millrace.bench.scaleout;

/**
 * A (re)started process's way back, as the process itself reports it.
 *
 * @param readyAtMs when it held its tasks with their stores ready and had started them (epoch ms)
 * @param restoreMs its stores' restore (Millrace: the assignment, restore included; Kafka Streams:
 *     first restore start to last restore end), 0 when nothing was restored
 * @param restoredRecords changelog records it restored
 */
record Readiness(long readyAtMs, long restoreMs, long restoredRecords) {}
