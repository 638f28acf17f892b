package io.millrace.core.job;

import io.millrace.core.loop.RunLoop;
import io.millrace.spi.system.SystemConsumer;
import java.util.Map;

/**
 * A container ready to run: its id in the process, its loop, and its consumers by system name
 * (the status page reads the message counts of those that keep them).
 */
public record Container(int id, RunLoop loop, Map<String, SystemConsumer> consumers) {}
