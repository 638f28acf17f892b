package io.millrace.core.loop;

import io.millrace.spi.coordinator.MembershipListener;
import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.MetricsRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens when a container's tasks change: its membership calls this, on the loop thread,
 * between two deliveries.
 *
 * <p><b>Revoke</b>, before the tasks' partitions are released to another member:
 *
 * <ol>
 *   <li>their partitions stop being delivered; what is buffered for them is dropped, uncommitted
 *       (the next owner reads it again);
 *   <li>their messages in flight (async tasks, worker pool) get until {@code task.shutdown.ms}
 *       to complete, then are abandoned: the commit keeps only what completed below each
 *       partition's watermark, and a callback that comes later is ignored;
 *   <li>the container commits: stores flush, outputs and changelogs are acknowledged, the
 *       checkpoint holds the tasks' last offsets (where the commit can wait in the background,
 *       the tasks that stay are delivered to meanwhile);
 *   <li>the tasks close, their stores close, and their partitions leave the consumers, the
 *       chooser and the partition table; the checkpoint layout follows.
 * </ol>
 *
 * <p><b>Lost</b> (another member owns the tasks already): as a revoke without the commit, so
 * nothing of theirs is written after the loss; their stores' local files lose their changelog
 * offset record (they may hold writes no checkpoint has); and when the container is left with no
 * task, its producers drop what they sent since the last commit (a transactional producer
 * aborts). A commit that is fenced loses every task this way.
 *
 * <p><b>Assign</b>: the tasks' stores open from local files and restore the changelog's tail (or
 * all of it); their inputs resume after their checkpoints, registered with the consumers; the
 * tasks init; the checkpoint layout follows. The container's other tasks are not committed
 * first: a long restore runs beside them (below), and they go on committing through it.
 *
 * <p><b>Preparation and restores beside processing.</b> A container that runs other tasks
 * prepares the arriving ones (their checkpoints read, their inputs' heads looked up, their stores
 * opened) and restores their stores on its restore thread while the others go on: their stores
 * are open but detached (no commit sees them), and each task starts at the first membership poll
 * after its own stores are restored, not waiting for the others that arrived with it. A task
 * revoked or lost meanwhile has its restore cancelled and its stores closed; a restore that fails
 * fails the container, as it did inline. A container with nothing else to run prepares and
 * restores inline: there is nothing to keep going.
 */
final class Reassigner implements MembershipListener {
  private static final Logger LOG = LoggerFactory.getLogger(Reassigner.class);
  private final RunLoop loop;
  private final Delivery delivery;
  private final TaskSource source;
  private final Counter assignedCount;
  private final Counter revokedCount;
  private final Counter lostCount;
  /** How long the last revocation and assignment took, in ms (gauges). */
  private volatile long lastRevokeMs;
  private volatile long lastAssignMs;
  /** Tasks prepared and restored on the restore thread, in the order they came (loop thread). */
  private final List<Restoring> restoring = new ArrayList<>();
  private ExecutorService restoreThread;

  /** Tasks taken that are prepared and restored beside the container's other tasks. */
  private static final class Restoring {
    final long started;
    /**
     * The tasks, once the restore thread has prepared them (null before, or if that failed):
     * written before the restore reports a task ready, and read by the loop after that report or
     * after {@link #done}.
     */
    volatile TaskSource.Taking taking;
    /** When their checkpoints were read and their stores opened (the restore began). */
    volatile long prepared;
    /** Those not started yet (loop thread). */
    final Set<Integer> pending;
    /** Those whose stores are restored, as the restore says so (restore threads to loop). */
    final Queue<Integer> ready = new ConcurrentLinkedQueue<>();
    final AtomicBoolean cancelled = new AtomicBoolean();
    Future<?> done;

    Restoring(Set<Integer> numbers, long started) {
      this.pending = new TreeSet<>(numbers);
      this.started = started;
    }
  }

  Reassigner(RunLoop loop, Delivery delivery, TaskSource source) {
    this.loop = loop;
    this.delivery = delivery;
    this.source = source;
    MetricsRegistry metrics = loop.metrics();
    String group = loop.metricsGroup();
    this.assignedCount = metrics.counter(group, "tasks-assigned");
    this.revokedCount = metrics.counter(group, "tasks-revoked");
    this.lostCount = metrics.counter(group, "tasks-lost");
    metrics.gauge(group, "last-revoke-ms", () -> lastRevokeMs);
    metrics.gauge(group, "last-assign-ms", () -> lastAssignMs);
  }

  @Override
  public void revoked(Set<Integer> numbers) {
    cancelRestores(numbers);
    List<TaskInstance> leaving = delivery.tasksNumbered(numbers);
    if (leaving.isEmpty()) {
      return;
    }
    long started = System.nanoTime();
    delivery.stopDelivering(leaving);
    delivery.settleInFlight(leaving);
    long settled = System.nanoTime();
    if (!loop.commitBeside()) { // the tasks that stay go on through its waits
      return; // fenced: every task of the container is lost already
    }
    long committed = System.nanoTime();
    Removal removal = remove(leaving, true);
    revokedCount.inc(leaving.size());
    lastRevokeMs = (System.nanoTime() - started) / 1_000_000;
    // The tasks that stay are delivered to through the commit's waits (not its hand-over of the
    // stores); every other phase pauses them.
    LOG.info("container {}: revoked task(s) {} (committed and closed in {} ms: in flight settled "
            + "{} ms, committed {} ms, then {})", loop.containerId(), names(leaving),
        lastRevokeMs, (settled - started) / 1_000_000, (committed - settled) / 1_000_000,
        removal);
  }

  /** How long the steps of removing tasks took, in nanoseconds. */
  private record Removal(long settleNanos, long tasksNanos, long storesNanos,
      long partitionsNanos) {
    @Override
    public String toString() {
      return "the commit settled " + settleNanos / 1_000_000 + " ms, tasks closed "
          + tasksNanos / 1_000_000 + " ms, stores closed " + storesNanos / 1_000_000
          + " ms, partitions removed " + partitionsNanos / 1_000_000 + " ms";
    }
  }

  @Override
  public void lost(Set<Integer> numbers) {
    cancelRestores(numbers);
    List<TaskInstance> leaving = delivery.tasksNumbered(numbers);
    if (leaving.isEmpty()) {
      return;
    }
    delivery.stopDelivering(leaving);
    delivery.abandonInFlight(leaving);
    remove(leaving, false);
    lostCount.inc(leaving.size());
    if (delivery.tasks().isEmpty()) {
      loop.abandonUncommitted(); // nothing left whose uncommitted writes could still be wanted
    }
    LOG.warn("container {}: lost task(s) {} to another member without committing them",
        loop.containerId(), names(leaving));
  }

  /** Closes the tasks and their stores and removes their partitions; says how long each took. */
  private Removal remove(List<TaskInstance> leaving, boolean committed) {
    long t0 = System.nanoTime();
    loop.settleCommit(); // their stores close below: no commit may still sync them
    long t1 = System.nanoTime();
    delivery.awaitWorkers(leaving);
    for (TaskInstance t : leaving) {
      try {
        t.close();
      } catch (Exception e) {
        LOG.warn("container {}: task {} failed to close", loop.containerId(), t.name, e);
      }
    }
    long t2 = System.nanoTime();
    // Their stores close first: the checkpoint layout the loop makes next must not hold their
    // changelogs, or a later commit would write a record for a task another member owns.
    for (TaskInstance t : leaving) {
      source.release(t.number, committed);
    }
    long t3 = System.nanoTime();
    delivery.removeTasks(leaving);
    return new Removal(t1 - t0, t2 - t1, t3 - t2, System.nanoTime() - t3);
  }

  @Override
  public void assigned(Set<Integer> numbers) {
    Set<Integer> fresh = new TreeSet<>(numbers);
    fresh.removeAll(tasks());
    if (fresh.isEmpty()) {
      return;
    }
    long started = System.nanoTime();
    // No commit first: a long restore runs beside the other tasks, which go on committing, and
    // one runs inline only when there is nothing else to commit. (A commit here cost a takeover
    // a whole transaction, up to a second on a busy broker, before its stores even opened.)
    if (delivery.tasks().isEmpty() && restoring.isEmpty()) {
      // Nothing else to keep running: prepare and restore here, and start at once.
      TaskSource.Taking taking = source.prepare(fresh);
      long prepared = System.nanoTime();
      try {
        taking.restore(() -> false, n -> { });
      } catch (RuntimeException e) {
        taking.abandon();
        throw e;
      }
      start(fresh, taking, started, prepared);
      return;
    }
    // Other tasks run: even the preparation leaves the loop. Reading the arriving tasks'
    // checkpoints and inputs' heads (round trips to the brokers) and opening their stores took
    // 97-393 ms on the scale-out benchmark's join, all of it a gap in the others' output.
    Restoring r = new Restoring(fresh, started);
    source.claim(fresh); // their standby copies here wait for the prepare, open
    r.done = restoreThread().submit(() -> {
      if (r.cancelled.get()) {
        // Given up while queued behind another restore: nothing to prepare, nothing to close
        // (the loop waits for this in abandon; a whole preparation would hold it up).
        source.unclaim(fresh);
        return;
      }
      TaskSource.Taking taking = source.prepare(fresh);
      r.prepared = System.nanoTime();
      r.taking = taking; // before any task is reported ready (see Restoring.taking)
      if (!r.cancelled.get()) {
        taking.restoreBeside(r.cancelled::get, r.ready::add, loop::busy);
      }
    });
    restoring.add(r);
    LOG.info("container {}: task(s) {} are prepared and restored on the restore thread while its "
        + "other {} task(s) run", loop.containerId(), fresh, delivery.tasks().size());
  }

  private ExecutorService restoreThread() {
    if (restoreThread == null) {
      restoreThread = Executors.newSingleThreadExecutor(runnable -> {
        Thread t = new Thread(runnable, "millrace-restore-" + loop.containerId());
        t.setDaemon(true);
        return t;
      });
    }
    return restoreThread;
  }

  /** Attaches restored stores, adds the tasks to the loop and inits them. */
  private void start(Set<Integer> numbers, TaskSource.Taking taking, long started,
      long prepared) {
    long restored = System.nanoTime();
    taking.attach(numbers);
    List<TaskSpec> specs = taking.specs().stream()
        .filter(spec -> numbers.contains(spec.task().number)).toList();
    delivery.addTasks(specs);
    for (TaskSpec spec : specs) {
      try {
        spec.task().init();
      } catch (Exception e) {
        throw new TaskFailedException("task " + spec.task().name + " failed in init: " + e, e);
      }
    }
    assignedCount.inc(specs.size());
    long ready = System.nanoTime();
    lastAssignMs = (ready - started) / 1_000_000;
    LOG.info("container {}: assigned task(s) {} (ready in {} ms: checkpoints and stores "
            + "opened {} ms, restored {} ms, start {} ms)", loop.containerId(), numbers,
        lastAssignMs, (prepared - started) / 1_000_000, (restored - prepared) / 1_000_000,
        (ready - restored) / 1_000_000);
  }

  /**
   * Starts each task whose stores are restored, without waiting for the others restored with
   * it; rethrows a restore's failure as the container's. Loop thread, at each membership poll:
   * cheap when none is out.
   */
  void finishRestores() {
    if (restoring.isEmpty()) {
      return; // the common case, every 10 ms: no iterator
    }
    for (Iterator<Restoring> i = restoring.iterator(); i.hasNext(); ) {
      Restoring r = i.next();
      if (r.done.isDone()) {
        try {
          r.done.get();
        } catch (ExecutionException e) {
          i.remove();
          abandonTaking(r); // (a preparation that failed closed what it opened itself)
          Throwable cause = e.getCause();
          throw cause instanceof RuntimeException re ? re
              : new IllegalStateException("restoring task(s) " + r.pending + " failed: " + cause,
                  cause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      Set<Integer> now = new TreeSet<>();
      for (Integer n = r.ready.poll(); n != null; n = r.ready.poll()) {
        if (r.pending.remove(n)) {
          now.add(n);
        }
      }
      if (!now.isEmpty()) {
        start(now, r.taking, r.started, r.prepared);
        loop.membershipOf().tasksStarted(now); // its status counts the restore in
      }
      if (r.pending.isEmpty() && r.done.isDone()) {
        i.remove();
      }
    }
  }

  /**
   * Tasks that leave while restoring: their restores are cancelled and waited for, and their
   * stores closed. Other tasks restored with them in one batch are taken again, on their own.
   */
  private void cancelRestores(Set<Integer> numbers) {
    List<Set<Integer>> again = new ArrayList<>();
    for (Iterator<Restoring> i = restoring.iterator(); i.hasNext(); ) {
      Restoring r = i.next();
      if (Collections.disjoint(r.pending, numbers)) {
        continue;
      }
      i.remove();
      abandon(r);
      Set<Integer> rest = new TreeSet<>(r.pending);
      rest.removeAll(numbers);
      if (!rest.isEmpty()) {
        again.add(rest);
      }
    }
    again.forEach(this::assigned);
  }

  private void abandon(Restoring r) {
    r.cancelled.set(true);
    try {
      r.done.get();
    } catch (ExecutionException e) {
      LOG.warn("container {}: the cancelled restore of task(s) {} failed: {}",
          loop.containerId(), r.pending, e.getCause().toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    abandonTaking(r);
    LOG.info("container {}: task(s) {} left while restoring: restore cancelled",
        loop.containerId(), r.pending);
  }

  /** Gives up what a restore's preparation opened, if it got that far. */
  private static void abandonTaking(Restoring r) {
    TaskSource.Taking taking = r.taking;
    if (taking != null) {
      taking.abandon();
    }
  }

  /** The container stops: restores still out are cancelled, their stores closed. */
  void abandonRestores() {
    for (Restoring r : restoring) {
      abandon(r);
    }
    restoring.clear();
    if (restoreThread != null) {
      restoreThread.shutdownNow();
      restoreThread = null;
    }
  }

  /** The container's tasks: those running and those whose stores are restoring. */
  @Override
  public Set<Integer> tasks() {
    Set<Integer> numbers = new LinkedHashSet<>();
    for (TaskInstance t : delivery.tasks()) {
      numbers.add(t.number);
    }
    for (Restoring r : restoring) {
      numbers.addAll(r.pending);
    }
    return numbers;
  }

  @Override
  public Map<Integer, Map<String, Long>> localState() {
    return source.localState();
  }

  @Override
  public void standbys(Set<Integer> numbers) {
    source.standbys(numbers);
  }

  @Override
  public Map<Integer, Long> standbyLag() {
    return source.standbyLag();
  }

  private static List<String> names(List<TaskInstance> tasks) {
    List<String> names = new ArrayList<>();
    for (TaskInstance t : tasks) {
      names.add(t.name);
    }
    return names;
  }
}
