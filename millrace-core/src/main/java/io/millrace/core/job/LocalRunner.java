package io.millrace.core.job;

import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.core.config.CoreKeys;
import io.millrace.core.http.MessageCounts;
import io.millrace.core.http.ReportedMetrics;
import io.millrace.core.http.StatusServer;
import io.millrace.core.loop.Clock;
import io.millrace.core.loop.PartitionState;
import io.millrace.core.loop.RunLoop;
import io.millrace.core.metrics.JmxReporter;
import io.millrace.core.metrics.LogReporter;
import io.millrace.core.store.SharedChangelogReaders;
import io.millrace.core.store.StandbyReplicas;
import io.millrace.core.store.StateUpdater;
import io.millrace.core.system.MessageCounting;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a job in this process: {@code job.container.count} containers, each on its own thread.
 * When one container fails, the others are asked to commit and stop.
 */
public final class LocalRunner {
  private static final Logger LOG = LoggerFactory.getLogger(LocalRunner.class);
  private final JobPlan plan;
  private final List<Container> containers = new ArrayList<>();
  private final CountDownLatch done;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<AutoCloseable> reporters = new ArrayList<>();
  private final JobCoordinator coordinator;
  /** The process's standby copies of other processes' tasks, or null. */
  private final StandbyReplicas standbys;
  /** Restores the containers' arriving tasks and keeps the standby copies current. */
  private final StateUpdater updater;
  /** The changelog readers its thread shares among restores and standby copies. */
  private final SharedChangelogReaders changelogReaders;
  private final AtomicBoolean released = new AtomicBoolean();
  private volatile long startNanos;
  private volatile StatusServer statusServer;

  /**
   * Builds the containers of a planned job. If that fails the coordinator is closed; the plan
   * stays the caller's to close (once built, the runner closes it when the job ends).
   */
  public LocalRunner(JobPlan plan, Clock clock) {
    this.plan = plan;
    this.coordinator = plan.newCoordinator();
    this.changelogReaders = ContainerFactory.changelogReaders(plan);
    this.standbys = ContainerFactory.standbys(plan, changelogReaders);
    this.updater = new StateUpdater(standbys, "millrace-" + plan.jobName() + "-state");
    try {
      for (int id = 0; id < plan.containerCount(); id++) {
        containers.add(ContainerFactory.build(plan, id, clock, coordinator, standbys, updater,
            changelogReaders));
      }
      if (standbys != null) {
        // Copies of tasks that run elsewhere catch up in the containers' spare time.
        standbys.paceWhile(() -> containers.stream().anyMatch(c -> c.loop().busy()),
            JobPlanner.restoreBesidePercent(plan.config()));
      }
    } catch (RuntimeException e) {
      updater.close();
      changelogReaders.close();
      coordinator.close();
      throw e;
    }
    done = new CountDownLatch(containers.size());
  }

  /**
   * Builds and starts a planned job's runner. A failure leaves nothing open: what the runner
   * started, its coordinator and the plan are closed before it is thrown.
   */
  public static LocalRunner start(JobPlan plan, Clock clock) {
    LocalRunner runner;
    try {
      runner = new LocalRunner(plan, clock);
    } catch (RuntimeException e) {
      plan.close();
      throw e;
    }
    runner.start();
    return runner;
  }

  /** The job's plan. */
  public JobPlan plan() {
    return plan;
  }

  /** The containers. */
  public List<Container> containers() {
    return containers;
  }

  /**
   * Starts the configured reporters and every container thread. If a reporter cannot start (a
   * taken {@code metrics.http.port}, say), those already started, the coordinator and the plan
   * are closed before the failure is thrown: nothing of the job is left behind.
   */
  public void start() {
    try {
      startReporters();
    } catch (RuntimeException e) {
      release();
      throw e;
    }
    startNanos = System.nanoTime();
    for (Container container : containers) {
      Thread thread = new Thread(() -> runContainer(container),
          "millrace-" + plan.jobName() + "-container-" + container.id());
      thread.start();
    }
  }

  private void startReporters() {
    List<String> names = plan.config().getList(CoreKeys.REPORTERS);
    List<RunLoop> loops = new ArrayList<>();
    containers.forEach(c -> loops.add(c.loop()));
    // A file partition's lag as /metrics shows it (an estimate in messages), not the loop's -1.
    Supplier<Map<String, Map<String, Long>>> reported =
        ReportedMetrics.of(plan.metrics(), loops, messageCounts());
    if (names.contains("log")) {
      reporters.add(new LogReporter(reported,
          plan.config().getLong(CoreKeys.REPORTER_INTERVAL_MS, 60_000, 1)));
    }
    if (names.contains("jmx")) {
      reporters.add(new JmxReporter(plan.metrics(), reported, plan.jobName()));
    }
    int httpPort = plan.config().getInt(CoreKeys.HTTP_PORT, -1, -1);
    if (httpPort >= 0) {
      statusServer = StatusServer.start(plan.config().get(CoreKeys.HTTP_HOST, "0.0.0.0"),
          httpPort, loops, messageCounts(), plan.metrics(), plan.jobName(), plan.storesDir());
      reporters.add(statusServer);
    }
  }

  private void runContainer(Container container) {
    try {
      container.loop().run();
    } catch (Throwable e) {
      if (failure.compareAndSet(null, e)) {
        LOG.error("container {} failed: {}", container.id(), e.getMessage());
      }
      requestStop();
    } finally {
      done.countDown();
    }
  }

  /** Asks every container to commit and stop. Any thread. */
  public void requestStop() {
    for (Container container : containers) {
      container.loop().requestStop();
    }
  }

  /**
   * Waits for every container to stop; true if they did within the time. The first call that
   * sees them stopped closes the job's reporters, coordinator and systems.
   */
  public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
    boolean stopped = done.await(timeout, unit);
    if (stopped) {
      release();
    }
    return stopped;
  }

  /** Closes the job's reporters, coordinator and systems, once. */
  private void release() {
    if (released.compareAndSet(false, true)) {
      for (AutoCloseable reporter : reporters) {
        try {
          reporter.close();
        } catch (Exception e) {
          LOG.warn("metrics reporter failed to close", e);
        }
      }
      reporters.clear();
      updater.close(); // the standby copies synced and marked: a restart replays their tails
      changelogReaders.close(); // after the updater's thread, their only user, has ended
      try {
        coordinator.close();
      } catch (RuntimeException e) {
        LOG.warn("the job's coordinator failed to close", e);
      }
      plan.close();
    }
  }

  /**
   * The consumers that count a partition's messages where its offsets do not (files): what the
   * status page shows rates and lag in.
   */
  public MessageCounts messageCounts() {
    return (container, partition) -> containers.get(container).consumers()
        .get(partition.id().system()) instanceof MessageCounting counting ? counting : null;
  }

  /** The port of the metrics and status server ({@code metrics.http.port}), or -1 if none. */
  public int httpPort() {
    StatusServer server = statusServer;
    return server == null ? -1 : server.port();
  }

  /** Whether every container has stopped. */
  public boolean isDone() {
    return done.getCount() == 0;
  }

  /** Waits for every container to stop. */
  public void await() throws InterruptedException {
    await(Long.MAX_VALUE, TimeUnit.DAYS);
  }

  /** The first failure of a container, or null. */
  public Throwable failure() {
    return failure.get();
  }

  /** Messages processed by all containers so far. */
  public long processed() {
    long sum = 0;
    for (Container container : containers) {
      sum += container.loop().processedCount();
    }
    return sum;
  }

  /** When {@link #start} was called. */
  public long startNanos() {
    return startNanos;
  }

  /**
   * The fraction of bounded input done, from offsets (messages or bytes), or -1 if any input is
   * unbounded.
   */
  public double fractionDone() {
    double total = 0;
    double done = 0;
    for (Container container : containers) {
      for (PartitionState p : container.loop().partitions()) {
        long start = p.progressStart();
        long end = p.progressEnd();
        if (end < 0) {
          return -1;
        }
        total += Math.max(0, end - start);
        long last = p.lastOffset();
        long at = last == Long.MIN_VALUE ? start : last + 1;
        done += Math.max(0, Math.min(end, at) - start);
      }
    }
    return total == 0 ? 1 : done / total;
  }

  /** Runs a job to the end in this thread; throws its failure if it failed. */
  public static long runToEnd(JobPlan plan) throws Throwable {
    LocalRunner runner = new LocalRunner(plan, Clock.SYSTEM);
    runner.start();
    runner.await();
    if (runner.failure() != null) {
      throw runner.failure();
    }
    return runner.processed();
  }
}
