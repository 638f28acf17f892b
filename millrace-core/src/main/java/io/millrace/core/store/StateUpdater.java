package io.millrace.core.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's state updater (Kafka Streams' {@code StateUpdater}): one thread that restores the
 * stores of the tasks arriving in any of the process's containers and, in between, keeps the
 * process's standby and warm-up copies current ({@link StandbyReplicas}).
 *
 * <p><b>Arriving tasks first.</b> A task that arrives has no live copy anywhere: its output stands
 * still until its stores are restored, so a restore runs as soon as the thread is free and at
 * full speed, and the standby copies wait (a copy's rest beside busy containers ends at once for
 * it). Restores are run one after another, in the order they came; each tells its container
 * that a task is ready by posting an event to the container's loop, which never polls for it.
 * The copies follow their changelogs between restores, paced by {@code
 * job.container.restore.beside.percent} while the containers are busy.
 *
 * <p><b>One per process, not per container.</b> A standby copy is the process's: whichever of its
 * containers takes the copy's task takes the copy's engines open. With the restore and the copies
 * on one thread, that hand-over is a step of the thread's own ({@link StandbyReplicas#activate}
 * on it waits for no other thread), and a copy can never be opened while a restore of its task
 * has its files.
 *
 * <p>Threading: {@link #restore} and {@link #close} from any thread; the thread starts with the
 * first restore or the first copy wanted.
 */
public final class StateUpdater implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StateUpdater.class);
  /** How long the thread sleeps with nothing to do before it looks again. */
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
  private final StandbyReplicas standbys;
  private final String threadName;
  /** Restores waiting for the thread, oldest first. */
  private final Queue<Restore> restores = new ConcurrentLinkedQueue<>();
  private final Object lock = new Object();
  private Thread thread;
  private volatile boolean running = true;

  /** A restore waiting for the thread, and its end. */
  private record Restore(Runnable work, CompletableFuture<Void> done) {}

  /**
   * @param standbys the process's standby copies, kept current between restores, or null
   * @param threadName the thread's name
   */
  public StateUpdater(StandbyReplicas standbys, String threadName) {
    this.standbys = standbys;
    this.threadName = threadName;
    if (standbys != null) {
      standbys.runBy(new StandbyReplicas.Runner() {
        @Override
        public void start() {
          StateUpdater.this.start();
        }

        @Override
        public boolean onThread() {
          return StateUpdater.this.onThread();
        }

        @Override
        public boolean restoreWaiting() {
          return StateUpdater.this.restoreWaiting();
        }
      });
    }
  }

  /**
   * Runs {@code work} (an arriving task's preparation and restore) on the updater's thread,
   * before any more standby work. Any thread.
   *
   * @return completes when {@code work} has run, with what it threw; completed exceptionally
   *     without running if the updater closes first
   */
  public CompletableFuture<Void> restore(Runnable work) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (lock) {
      if (!running) {
        done.completeExceptionally(new IllegalStateException("the state updater is closed"));
        return done;
      }
      restores.add(new Restore(work, done));
      startLocked();
      lock.notifyAll();
    }
    if (standbys != null) {
      standbys.wake(); // a copy resting, or idle, gives the thread up at once
    }
    return done;
  }

  /**
   * Takes back a restore that has not begun: it will never run. Any thread.
   *
   * @param done what {@link #restore} returned
   * @return whether it was waiting (false: it has run, or is running)
   */
  public boolean withdraw(CompletableFuture<Void> done) {
    if (restores.removeIf(r -> r.done() == done)) {
      done.complete(null);
      return true;
    }
    return false;
  }

  /**
   * Between two batches of a restore on the updater's thread: the standby copies that a
   * container of the process waits to take are handed over now, not after the restore. Any
   * thread (a restore's other threads do nothing here).
   */
  public void betweenBatches() {
    if (standbys != null && onThread()) {
      standbys.handOverTaken();
    }
  }

  /** Whether a restore waits for the thread: standby work gives way. Any thread. */
  boolean restoreWaiting() {
    return !restores.isEmpty();
  }

  /** Whether the calling thread is the updater's. */
  boolean onThread() {
    return Thread.currentThread() == thread;
  }

  /** Starts the thread for the standby copies (their first one is wanted). Any thread. */
  void start() {
    synchronized (lock) {
      if (running) {
        startLocked();
      }
    }
  }

  private void startLocked() {
    if (thread == null) {
      thread = new Thread(this::run, threadName);
      thread.setDaemon(true);
      thread.start();
    }
  }

  private void run() {
    try {
      while (running) {
        Restore next = restores.poll();
        if (next != null) {
          runRestore(next);
        } else if (standbys != null) {
          standbys.cycle(); // waits there while there is nothing to follow
        } else {
          idle();
        }
      }
    } finally {
      if (standbys != null) {
        standbys.closeAll(); // synced and marked: a restart here replays only their tails
      }
    }
  }

  private static void runRestore(Restore restore) {
    try {
      restore.work().run();
      restore.done().complete(null);
    } catch (RuntimeException | Error e) {
      restore.done().completeExceptionally(e);
    }
  }

  private void idle() {
    synchronized (lock) {
      if (running && restores.isEmpty()) {
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, IDLE_NANOS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          running = false;
        }
      }
    }
  }

  /**
   * Stops the thread once what it does now is done: the standby copies are synced, marked and
   * closed; restores that never ran end with a failure. After the containers closed (each
   * cancelled its own restores and waited for them).
   */
  @Override
  public void close() {
    Thread t;
    synchronized (lock) {
      running = false;
      lock.notifyAll();
      t = thread;
    }
    if (standbys != null) {
      standbys.stopping();
    }
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else if (t == null && standbys != null) {
      standbys.closeAll();
    }
    List<Restore> left = new ArrayList<>();
    for (Restore r = restores.poll(); r != null; r = restores.poll()) {
      left.add(r);
    }
    for (Restore r : left) {
      r.done().completeExceptionally(new IllegalStateException("the state updater closed"));
    }
    if (standbys != null) {
      standbys.close();
    }
    if (!left.isEmpty()) {
      LOG.info("state updater closed with {} restore(s) that never ran", left.size());
    }
  }
}
