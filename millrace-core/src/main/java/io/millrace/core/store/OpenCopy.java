package io.millrace.core.store;

import io.millrace.spi.engine.StorageEngine;

/**
 * A standby copy's engine, handed open to the container that takes its task ({@link
 * StandbyReplicas#activate}): the task's store takes it as it is and replays only what follows.
 *
 * @param engine the engine, open; the container's from now on (it closes it)
 * @param offset the changelog offset the engine holds up to (its files' mark may be older)
 */
public record OpenCopy(StorageEngine engine, long offset) {}
