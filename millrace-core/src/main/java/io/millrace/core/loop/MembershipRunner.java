package io.millrace.core.loop;

import io.millrace.spi.coordinator.ContainerMembership;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one container's membership on a thread of its own: polls it at its interval, so the
 * membership's calls to the container (revoke, lose, assign) arrive on this thread, where {@link
 * MembershipBridge} posts each to the loop and waits for its answer. The loop never polls the
 * membership and never runs inside it: a revoke's commit goes on over the loop's own cycles while
 * the tasks that stay are delivered to.
 *
 * <p><b>The proof of ownership.</b> A commit's checkpoint may carry the member's place in its
 * group (Kafka: the generation the group coordinator fences commits with), which a poll may
 * change (it may send the group a new join). So each poll holds the {@linkplain #tryHold
 * ownership} permit, and a commit holds it from when it takes its offsets until its checkpoint is
 * written: the two never overlap. A commit that finds a poll in progress is retried.
 */
final class MembershipRunner {
  private final int containerId;
  private final ContainerMembership membership;
  private final LoopEvents events;
  /** Held by each poll, and by a commit between its offsets and its write. */
  private final Semaphore ownership = new Semaphore(1);
  private volatile boolean stopping;
  /** What the last poll threw (for the loop to rethrow), or null. */
  private volatile Throwable failure;
  private Thread thread;

  MembershipRunner(int containerId, ContainerMembership membership, LoopEvents events) {
    this.containerId = containerId;
    this.membership = membership;
    this.events = events;
  }

  /**
   * Starts polling. {@code firstPolled} runs on the loop once the first poll returned, {@code
   * settled} once the membership says its tasks never change again (a static one); a poll that
   * throws fails the container (the loop rethrows it).
   */
  void start(Runnable firstPolled, Runnable settled) {
    thread = new Thread(() -> run(firstPolled, settled), "millrace-membership-" + containerId);
    thread.setDaemon(true);
    thread.start();
  }

  private void run(Runnable firstPolled, Runnable settled) {
    boolean first = true;
    try {
      while (!stopping) {
        ownership.acquireUninterruptibly();
        try {
          if (stopping) {
            return;
          }
          membership.poll();
        } finally {
          ownership.release();
        }
        long interval = membership.pollIntervalNanos();
        boolean last = interval == Long.MAX_VALUE;
        if (first) {
          first = false;
          // One event for both, so the loop knows from its first cycle on that nothing changes.
          events.execute(last ? () -> {
            firstPolled.run();
            settled.run();
          } : firstPolled);
        } else if (last) {
          events.execute(settled);
        }
        if (last) {
          return;
        }
        LockSupport.parkNanos(this, interval);
      }
    } catch (RuntimeException | Error e) {
      if (!stopping) {
        failure = e;
        events.execute(this::rethrow); // the container fails with it, as if the loop had polled
      }
    }
  }

  private void rethrow() {
    Throwable e = failure;
    if (e instanceof RuntimeException r) {
      throw r;
    }
    throw (Error) e;
  }

  /**
   * Takes the ownership permit if no poll is in progress: until {@link #release}, the membership
   * cannot change the member's place in its group. Loop thread.
   */
  boolean tryHold() {
    return ownership.tryAcquire();
  }

  /** Gives the permit back. */
  void release() {
    ownership.release();
  }

  /** From now on the thread polls no more (a poll in progress ends). Any thread. */
  void stopping() {
    stopping = true;
  }

  /**
   * Stops polling and waits for the thread to end. The loop first ends any call of the membership
   * that waits for it ({@link MembershipBridge#close}); a poll in progress returns by itself.
   */
  void stop() {
    stopping();
    Thread t = thread;
    if (t == null) {
      return;
    }
    LockSupport.unpark(t);
    try {
      t.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      RunLoop.LOG.warn("container {}: its membership's thread did not stop within 30 s",
          containerId);
    }
  }
}
