package io.millrace.core.job;

import io.millrace.core.loop.RunLoop;

/**
 * A container ready to run, with what progress reporting needs: for each partition, the offset it
 * started from and the offset bounded inputs end at (-1 when unknown or unbounded).
 */
public record Container(int id, RunLoop loop, long[] startOffsets, long[] endOffsets) {}
