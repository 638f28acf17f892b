package io.millrace.core.loop;

import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.core.commit.Committer;
import io.millrace.core.store.StateUpdater;
import io.millrace.core.store.StoreRegistry;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.coordinator.ContainerMembership;
import io.millrace.spi.system.SystemProducer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of a container's task table: the tasks that run (delivered to by {@link
 * Delivery}), those whose stores restore on the process's state updater, and those being
 * revoked. The membership's requests reach it as loop events ({@link MembershipBridge}); the loop
 * calls it, and it never calls the loop.
 *
 * <p><b>Revoke</b>, before the tasks' partitions are released to another member, a state machine
 * the loop moves on once a cycle ({@link #advance}) while the tasks that stay go on:
 *
 * <ol>
 *   <li>their partitions stop being delivered; what is buffered for them is dropped, uncommitted
 *       (the next owner reads it again);
 *   <li>SETTLING: their messages in flight (async tasks, worker pool) get until {@code
 *       task.shutdown.ms} to complete, then are abandoned: the commit keeps only what completed
 *       below each partition's watermark, and a callback that comes later is ignored;
 *   <li>COMMITTING: a commit that covers their last offsets is written (one on its way whose
 *       transaction takes its offsets at its write, or the next one begun);
 *   <li>the tasks close, their stores close, and their partitions leave the consumers, the
 *       chooser and the partition table; the checkpoint layout follows; the membership's call
 *       returns.
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
 * tasks init; the checkpoint layout follows. A container that runs other tasks has the arriving
 * ones prepared (checkpoints read, inputs' heads looked up, stores opened) and restored on the
 * process's state updater ({@link StateUpdater}) while the others go on: their stores are
 * detached (no commit sees them), and each task starts as soon as its own stores are restored,
 * when the updater's event says so. A task revoked or lost meanwhile has its restore withdrawn
 * (not begun) or cancelled, and its stores closed; a restore that fails fails the container. A
 * container with nothing else to run prepares and restores inline: there is nothing to keep
 * going.
 *
 * <p><b>Size.</b> Past 500 lines because each change of tasks keeps its steps together, with the
 * measured reason at each (a revoke's state machine, a loss, an assignment inline or beside the
 * others with its cancellation).
 */
final class TaskManager {
  private static final Logger LOG = LoggerFactory.getLogger(TaskManager.class);
  private final int containerId;
  private final Delivery delivery;
  private final Committer committer;
  private final TaskSource source;
  private final List<SystemProducer> producers;
  /** The container's stores, or null. */
  private final StoreRegistry stores;
  /** Where the state updater posts a task restored. */
  private final Executor events;
  /** Runs the restores of tasks taken beside others: the process's, or one of its own. */
  private StateUpdater updater;
  /** Whether {@link #updater} is this container's own (no process's was given), closed with it. */
  private final boolean ownUpdater;
  private final Counter assignedCount;
  private final Counter revokedCount;
  private final Counter lostCount;
  /** How long the last revocation and assignment took, in ms (gauges). */
  private volatile long lastRevokeMs;
  private volatile long lastAssignMs;
  /** Tasks prepared and restored on the state updater, in the order they came. */
  private final List<Restoring> restoring = new ArrayList<>();
  /** Revocations under way, oldest first. */
  private final List<Revocation> revocations = new ArrayList<>();
  /** The tasks the container holds (running, restoring, leaving), for the membership's thread. */
  private volatile Set<Integer> published = Set.of();
  private ContainerMembership membership;

  /** Tasks taken that are prepared and restored beside the container's other tasks. */
  private static final class Restoring {
    final long started;
    /** The tasks taken (claimed until prepared). */
    final Set<Integer> numbers;
    /**
     * The tasks, once the state updater has prepared them (null before, or if that failed):
     * written before the restore reports a task ready, and read by the loop after that report or
     * after {@link #done}.
     */
    volatile TaskSource.Taking taking;
    /** When their checkpoints were read and their stores opened (the restore began). */
    volatile long prepared;
    /** Those not started yet. */
    final Set<Integer> pending;
    /** Those whose stores are restored, as the restore says so (restoring threads to loop). */
    final Queue<Integer> ready = new ConcurrentLinkedQueue<>();
    final AtomicBoolean cancelled = new AtomicBoolean();
    /** The preparation and restore on the state updater; its end is posted to the loop. */
    CompletableFuture<Void> done;

    Restoring(Set<Integer> numbers, long started) {
      this.numbers = numbers;
      this.pending = new TreeSet<>(numbers);
      this.started = started;
    }
  }

  /** Where a revocation is. */
  private enum RevokePhase { SETTLING, COMMITTING }

  /** Tasks leaving after a commit; {@link #done} completes once they are closed. */
  private static final class Revocation {
    final List<TaskInstance> leaving;
    final CompletableFuture<Void> done;
    final long started = System.nanoTime();
    final long settleDeadline;
    RevokePhase phase = RevokePhase.SETTLING;
    long settled;
    /** The commit that covers their offsets, by its number (Committer#begunCount), or -1. */
    long commit = -1;

    Revocation(List<TaskInstance> leaving, CompletableFuture<Void> done, long settleNanos) {
      this.leaving = leaving;
      this.done = done;
      this.settleDeadline = started + settleNanos;
    }
  }

  TaskManager(int containerId, Delivery delivery, Committer committer, TaskSource source,
      List<SystemProducer> producers, StoreRegistry stores, StateUpdater updater,
      Executor events, MetricsRegistry metrics, String group) {
    this.containerId = containerId;
    this.delivery = delivery;
    this.committer = committer;
    this.source = source;
    this.producers = producers;
    this.stores = stores;
    this.events = events;
    this.updater = updater;
    this.ownUpdater = updater == null;
    this.assignedCount = metrics.counter(group, "tasks-assigned");
    this.revokedCount = metrics.counter(group, "tasks-revoked");
    this.lostCount = metrics.counter(group, "tasks-lost");
    metrics.gauge(group, "last-revoke-ms", () -> lastRevokeMs);
    metrics.gauge(group, "last-assign-ms", () -> lastAssignMs);
  }

  /** The container joined its job through {@code membership}. */
  void joined(ContainerMembership membership) {
    this.membership = membership;
  }

  // ---- what the loop asks ----

  /**
   * The container's tasks: those running, those restoring and those being revoked. Any thread
   * (the membership's asks it): a snapshot taken when the table last changed.
   */
  Set<Integer> tasks() {
    return published;
  }

  /** Whether tasks are being revoked now (the membership waits in its revoke call). */
  boolean revoking() {
    return !revocations.isEmpty();
  }

  /** Whether tasks are on their way in: restoring, or prepared but not started. */
  boolean restoring() {
    return !restoring.isEmpty();
  }

  /** Moves the revocations under way on (loop thread, once a cycle while there are any). */
  void advance() {
    for (Revocation r : List.copyOf(revocations)) {
      if (revocations.contains(r) && advance(r)) { // (a fence while committing lost them all)
        revocations.remove(r);
      }
    }
  }

  // ---- revoke ----

  /**
   * Tasks leave the container: they stop being delivered at once; {@code done} completes once
   * their work is committed and they are closed ({@link #advance} moves it on).
   */
  void revoke(Set<Integer> numbers, CompletableFuture<Void> done) {
    cancelRestores(numbers);
    List<TaskInstance> leaving = delivery.tasksNumbered(numbers);
    leaving.removeIf(t -> isLeaving(t));
    if (leaving.isEmpty()) {
      done.complete(null);
      return;
    }
    delivery.stopDelivering(leaving);
    revocations.add(new Revocation(new ArrayList<>(leaving), done, delivery.settleNanos()));
    advance();
  }

  private boolean isLeaving(TaskInstance t) {
    for (Revocation r : revocations) {
      if (r.leaving.contains(t)) {
        return true;
      }
    }
    return false;
  }

  /** Moves one revocation on; says whether it ended. */
  private boolean advance(Revocation r) {
    if (r.phase == RevokePhase.SETTLING) {
      if (delivery.inFlight(r.leaving) && System.nanoTime() - r.settleDeadline < 0) {
        return false; // their completions arrive as the loop goes on
      }
      delivery.abandonInFlight(r.leaving);
      r.settled = System.nanoTime();
      r.phase = RevokePhase.COMMITTING;
    }
    try {
      if (!covered(r)) {
        return false;
      }
    } catch (CommitFencedException e) {
      fenced(e); // every task of the container is lost, these too
      return true;
    }
    long committed = System.nanoTime();
    Removal removal = remove(r.leaving, true);
    revokedCount.inc(r.leaving.size());
    lastRevokeMs = (System.nanoTime() - r.started) / 1_000_000;
    // The tasks that stay were delivered to through every step but the removal.
    LOG.info("container {}: revoked task(s) {} (committed and closed in {} ms: in flight settled "
            + "{} ms, committed {} ms, then {})", containerId, names(r.leaving), lastRevokeMs,
        (r.settled - r.started) / 1_000_000, (committed - r.settled) / 1_000_000, removal);
    r.done.complete(null);
    return true;
  }

  /**
   * Whether a commit that covers the leaving tasks' last offsets is written: one begun after they
   * stopped being delivered, or the one on its way if its transaction takes its offsets at its
   * write and has not yet. Begins one when none is on its way.
   */
  private boolean covered(Revocation r) {
    while (true) {
      if (r.commit >= 0 && committer.writtenThrough() >= r.commit) {
        return true;
      }
      if (!committer.inProgress()) {
        committer.begin(); // in the background, or whole (and written) if it cannot be
        r.commit = committer.begunCount();
        if (!committer.inProgress() && committer.writtenThrough() < r.commit) {
          return false; // (a container with nothing to commit writes nothing: looked at again)
        }
        continue;
      }
      if (r.commit < 0 && committer.takesOffsetsAtWrite() && !committer.offsetsTaken()) {
        r.commit = committer.begunCount(); // the one on its way takes their last offsets
      }
      return false; // the commit on its way ends with an event; the loop comes back here
    }
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

  // ---- lost ----

  /**
   * Tasks the container lost without a chance to commit (another member owns them already): they
   * are closed and nothing more of theirs is written.
   */
  void lose(Set<Integer> numbers) {
    cancelRestores(numbers);
    List<TaskInstance> leaving = delivery.tasksNumbered(numbers);
    for (Iterator<Revocation> i = revocations.iterator(); i.hasNext(); ) {
      Revocation r = i.next();
      r.leaving.removeAll(leaving); // those lost are another member's: nothing to commit
      if (r.leaving.isEmpty()) {
        i.remove();
        r.done.complete(null);
      }
    }
    if (leaving.isEmpty()) {
      publish();
      return;
    }
    delivery.stopDelivering(leaving);
    delivery.abandonInFlight(leaving);
    remove(leaving, false);
    lostCount.inc(leaving.size());
    if (delivery.tasks().isEmpty()) {
      abandonUncommitted(); // nothing left whose uncommitted writes could still be wanted
    }
    LOG.warn("container {}: lost task(s) {} to another member without committing them",
        containerId, names(leaving));
  }

  /**
   * A commit was refused: every task of the container is lost, and its membership forgets what it
   * held and rejoins (a local one stops the container).
   */
  void fenced(CommitFencedException e) {
    LOG.warn("container {}: {}; its tasks are lost", containerId, e.getMessage());
    lose(new TreeSet<>(tasks()));
    membership.lostAll();
  }

  /**
   * The container holds no task any more and lost the last ones without a commit: what its
   * producers sent since the last commit is dropped where they can (an aborted transaction).
   */
  private void abandonUncommitted() {
    for (SystemProducer producer : producers) {
      producer.abandon();
    }
    if (stores != null) {
      stores.commits().forgetFence(); // a fence the flusher met was the lost tasks'
    }
  }

  /** Closes the tasks and their stores and removes their partitions; says how long each took. */
  private Removal remove(List<TaskInstance> leaving, boolean committed) {
    long t0 = System.nanoTime();
    committer.settle(); // their stores close below: no commit may still sync them
    long t1 = System.nanoTime();
    delivery.awaitWorkers(leaving);
    for (TaskInstance t : leaving) {
      try {
        t.close();
      } catch (Exception e) {
        LOG.warn("container {}: task {} failed to close", containerId, t.name, e);
      }
    }
    long t2 = System.nanoTime();
    // Their stores close first: the checkpoint layout made next must not hold their
    // changelogs, or a later commit would write a record for a task another member owns.
    for (TaskInstance t : leaving) {
      source.release(t.number, committed);
    }
    long t3 = System.nanoTime();
    delivery.removeTasks(leaving);
    publish();
    return new Removal(t1 - t0, t2 - t1, t3 - t2, System.nanoTime() - t3);
  }

  // ---- assign ----

  /**
   * Tasks the container takes: started at once if it has nothing else to run (after an inline
   * restore), else prepared and restored on the state updater while the others go on.
   */
  void assign(Set<Integer> numbers) {
    Set<Integer> fresh = new TreeSet<>(numbers);
    fresh.removeAll(tasks());
    if (fresh.isEmpty()) {
      return;
    }
    long started = System.nanoTime();
    // No commit first: a long restore runs beside the other tasks, which go on committing, and
    // one runs inline only when there is nothing else to commit. (A commit here cost a takeover
    // a whole transaction, up to a second on a busy broker, before its stores even opened.)
    if (delivery.tasks().isEmpty() && restoring.isEmpty() && revocations.isEmpty()) {
      // Nothing else to keep running: prepare and restore here, and start at once.
      TaskSource.Taking taking = source.prepare(fresh);
      long prepared = System.nanoTime();
      try {
        restoreAndWait(taking);
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
    StateUpdater restorer = updater();
    r.done = restorer.restore(() -> {
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
        // At full speed, beside the others: the task has no live copy anywhere, and its output
        // stands still until this ends (a failover; only copies of tasks that run elsewhere are
        // paced: StandbyReplicas).
        taking.restore(() -> {
          restorer.betweenBatches(); // a standby copy another container waits for goes now
          return r.cancelled.get();
        }, n -> {
          r.ready.add(n);
          events.execute(this::startRestored);
        });
      }
    });
    // Its end, or its failure, is the loop's to see: posted once the future holds it.
    r.done.whenComplete((ignored, failure) -> events.execute(this::startRestored));
    restoring.add(r);
    publish();
    LOG.info("container {}: task(s) {} are prepared and restored on the state updater while its "
        + "other {} task(s) run", containerId, fresh, delivery.tasks().size());
  }

  /**
   * Restores prepared tasks on the state updater's thread, the one thread that reads the
   * process's changelogs, and waits for it: the loop has nothing else to run. An interrupt
   * cancels the restore, which is waited for all the same (its stores are the caller's to
   * abandon only once nothing writes to them).
   */
  private void restoreAndWait(TaskSource.Taking taking) {
    AtomicBoolean cancelled = new AtomicBoolean();
    CompletableFuture<Void> done = updater().restore(
        () -> taking.restore(cancelled::get, n -> { }));
    boolean interrupted = false;
    while (true) {
      try {
        done.get();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
        cancelled.set(true);
      } catch (ExecutionException e) {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
        throw e.getCause() instanceof RuntimeException r ? r
            : new IllegalStateException("restoring tasks failed: " + e.getCause(), e.getCause());
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while restoring tasks");
    }
  }

  private StateUpdater updater() {
    if (updater == null) {
      updater = new StateUpdater(null, "millrace-restore-" + containerId);
    }
    return updater;
  }

  /** Attaches restored stores, adds the tasks to the container and inits them. */
  private void start(Set<Integer> numbers, TaskSource.Taking taking, long started,
      long prepared) {
    long restored = System.nanoTime();
    taking.attach(numbers);
    List<TaskSpec> specs = taking.specs().stream()
        .filter(spec -> numbers.contains(spec.task().number)).toList();
    delivery.addTasks(specs);
    publish();
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
            + "opened {} ms, restored {} ms, start {} ms)", containerId, numbers,
        lastAssignMs, (prepared - started) / 1_000_000, (restored - prepared) / 1_000_000,
        (ready - restored) / 1_000_000);
  }

  /**
   * Event from the state updater: starts each task whose stores are restored, without waiting
   * for the others restored with it; rethrows a restore's failure as the container's.
   */
  private void startRestored() {
    for (Iterator<Restoring> i = restoring.iterator(); i.hasNext(); ) {
      Restoring r = i.next();
      if (r.done.isDone()) {
        try {
          r.done.get();
        } catch (ExecutionException | java.util.concurrent.CancellationException e) {
          i.remove();
          publish();
          abandonTaking(r); // (a preparation that failed closed what it opened itself)
          Throwable cause = e.getCause() == null ? e : e.getCause();
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
        membership.tasksStarted(now); // its status counts the restore in
      }
      if (r.pending.isEmpty() && r.done.isDone()) {
        i.remove();
        publish();
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
    publish();
    again.forEach(this::assign);
  }

  private void abandon(Restoring r) {
    r.cancelled.set(true);
    if (updater().withdraw(r.done)) {
      // Never begun (queued behind another container's restore): nothing opened, no wait.
      source.unclaim(r.numbers);
      LOG.info("container {}: task(s) {} left before their restore began", containerId,
          r.pending);
      return;
    }
    try {
      r.done.get();
    } catch (ExecutionException e) {
      LOG.warn("container {}: the cancelled restore of task(s) {} failed: {}", containerId,
          r.pending, e.getCause().toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    abandonTaking(r);
    LOG.info("container {}: task(s) {} left while restoring: restore cancelled", containerId,
        r.pending);
  }

  /** Gives up what a restore's preparation opened, if it got that far. */
  private static void abandonTaking(Restoring r) {
    TaskSource.Taking taking = r.taking;
    if (taking != null) {
      taking.abandon();
    }
  }

  /** The standby copies this container keeps from now on. */
  void standbys(Set<Integer> numbers) {
    source.standbys(numbers);
  }

  /**
   * The container stops: restores still out are cancelled, their stores closed; revocations
   * still under way end (the final commit covers their tasks, which close with the others).
   */
  void close() {
    for (Restoring r : restoring) {
      abandon(r);
    }
    restoring.clear();
    if (ownUpdater && updater != null) {
      updater.close();
      updater = null;
    }
    for (Revocation r : revocations) {
      r.done.completeExceptionally(new IllegalStateException("container " + containerId
          + " stopped while revoking task(s) " + names(r.leaving)));
    }
    revocations.clear();
    publish();
  }

  /** Publishes the task table for the membership's thread. */
  private void publish() {
    Set<Integer> numbers = new LinkedHashSet<>();
    for (TaskInstance t : delivery.tasks()) {
      numbers.add(t.number);
    }
    for (Restoring r : restoring) {
      numbers.addAll(r.pending);
    }
    published = Collections.unmodifiableSet(numbers);
  }

  private static List<String> names(List<TaskInstance> tasks) {
    List<String> names = new ArrayList<>();
    for (TaskInstance t : tasks) {
      names.add(t.name);
    }
    return names;
  }
}
