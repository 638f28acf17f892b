package io.millrace.core.loop;

import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemProducer;
import io.millrace.core.commit.Committer;
import io.millrace.core.store.StateUpdater;
import io.millrace.core.store.StoreRegistry;
import java.util.List;

/**
 * What a container's loop is made of, built by {@code ContainerFactory}: one parameter object
 * instead of a constructor of many arguments whose order matters.
 *
 * @param containerId the container's id in its process
 * @param settings timing, batching and async settings
 * @param clock the loop's clock (a test's manual clock, or the system's)
 * @param metrics where the container's metrics go
 * @param consumers the container's consumers, one per input system
 * @param producers the container's producers, one per output (or changelog) system
 * @param committer the commit protocol
 * @param errorPolicy what a bad message does
 * @param deadLetters the dead-letter output, or null
 * @param stores the container's stores, or null
 * @param dispatched whether messages go through the async dispatcher (an async task class, or a
 *     worker pool) rather than inline
 * @param coordinator decides which tasks the container runs (it joins at start)
 * @param taskSource builds the tasks the container takes and releases those it gives up
 * @param settleNanos how long a revoke waits for the leaving tasks' messages in flight
 * @param stateUpdater the process's state updater, which restores tasks taken beside others;
 *     null: the container makes one of its own when it first needs it
 */
public record ContainerParts(
    int containerId,
    LoopSettings settings,
    Clock clock,
    MetricsRegistry metrics,
    List<SystemConsumer> consumers,
    List<SystemProducer> producers,
    Committer committer,
    ErrorPolicy errorPolicy,
    DeadLetters deadLetters,
    StoreRegistry stores,
    boolean dispatched,
    JobCoordinator coordinator,
    TaskSource taskSource,
    long settleNanos,
    StateUpdater stateUpdater) {}
