package io.millrace.core.job;

import io.millrace.core.loop.RunLoop;

/** A container ready to run: its id in the process and its loop. */
public record Container(int id, RunLoop loop) {}
