package io.millrace.dsl.runtime;

/** An operator that acts when the task's watermark moves: windows close, join windows expire. */
interface WatermarkListener {
  /** The watermark moved to {@code watermark} ({@link Long#MAX_VALUE}: every input ended). */
  void advanceTo(long watermark);
}
