package io.millrace.core.embed;

import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.core.job.LocalRunner;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A job running in this process, as {@link Millrace} started it: wait for it, ask how it went,
 * stop it. Closing it stops it. Safe to use from any thread.
 */
public final class RunningJob implements AutoCloseable {
  private final LocalRunner runner;

  RunningJob(LocalRunner runner) {
    this.runner = runner;
  }

  /** The job's name ({@code job.name}). */
  public String name() {
    return runner.plan().jobName();
  }

  /** Whether every container has stopped: the inputs ended, the job failed or was stopped. */
  public boolean isDone() {
    return runner.isDone();
  }

  /**
   * Waits until the job has stopped; true if it did within {@code timeout}. Does not say how it
   * ended: see {@link #failure}.
   */
  public boolean await(Duration timeout) throws InterruptedException {
    return runner.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Waits until the job has stopped.
   *
   * @throws JobFailedException if it failed (its cause is the container's failure)
   */
  public void join() throws InterruptedException {
    runner.await();
    throwIfFailed();
  }

  /**
   * Asks every container to commit and stop, and waits up to {@code job.shutdown.ms} for them.
   * A job that had already failed stays failed: see {@link #failure} ({@link #join} throws it).
   *
   * @throws IllegalStateException if it did not stop within that time
   */
  public void stop() throws InterruptedException {
    runner.requestStop();
    long millis = runner.plan().shutdownMillis();
    if (!runner.await(millis, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("job " + name() + " did not stop within " + millis
          + " ms (job.shutdown.ms)");
    }
  }

  /** The first failure of a container, if the job failed. */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(runner.failure());
  }

  /** Messages processed so far by all the job's containers. */
  public long processed() {
    return runner.processed();
  }

  /** The job's metrics. */
  public MetricsRegistry metrics() {
    return runner.plan().metrics();
  }

  /** Stops the job ({@link #stop}); an interrupt is kept on the thread. */
  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void throwIfFailed() {
    Throwable failure = runner.failure();
    if (failure != null) {
      throw new JobFailedException(name(), failure);
    }
  }
}
