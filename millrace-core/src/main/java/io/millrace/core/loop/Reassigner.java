package io.millrace.core.loop;

import io.millrace.api.coordinator.MembershipListener;
import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.MetricsRegistry;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
 *       checkpoint holds the tasks' last offsets;
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
 * <p><b>Assign</b>: the container first commits what its other tasks did (so that no commit, nor
 * a transaction, stays open through a long restore); the tasks' stores open from local files and
 * restore the changelog's tail (or all of it); their inputs resume after their checkpoints,
 * registered with the consumers; the tasks init; the checkpoint layout follows.
 */
final class Reassigner implements MembershipListener {
  private static final Logger LOG = LoggerFactory.getLogger(Reassigner.class);
  private final RunLoop loop;
  private final TaskSource source;
  private final Counter assignedCount;
  private final Counter revokedCount;
  private final Counter lostCount;
  /** How long the last revocation and assignment took, in ms (gauges). */
  private volatile long lastRevokeMs;
  private volatile long lastAssignMs;

  Reassigner(RunLoop loop, TaskSource source) {
    this.loop = loop;
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
    List<TaskInstance> leaving = loop.tasksNumbered(numbers);
    if (leaving.isEmpty()) {
      return;
    }
    long started = System.nanoTime();
    loop.stopDelivering(leaving);
    loop.settleInFlight(leaving);
    if (!loop.commit()) {
      return; // fenced: every task of the container is lost already
    }
    remove(leaving, true);
    revokedCount.inc(leaving.size());
    lastRevokeMs = (System.nanoTime() - started) / 1_000_000;
    LOG.info("container {}: revoked task(s) {} (committed and closed in {} ms)",
        loop.containerId(), names(leaving), (System.nanoTime() - started) / 1_000_000);
  }

  @Override
  public void lost(Set<Integer> numbers) {
    List<TaskInstance> leaving = loop.tasksNumbered(numbers);
    if (leaving.isEmpty()) {
      return;
    }
    loop.stopDelivering(leaving);
    loop.abandonInFlight(leaving);
    remove(leaving, false);
    lostCount.inc(leaving.size());
    if (loop.tasks().isEmpty()) {
      loop.abandonUncommitted(); // nothing left whose uncommitted writes could still be wanted
    }
    LOG.warn("container {}: lost task(s) {} to another member without committing them",
        loop.containerId(), names(leaving));
  }

  private void remove(List<TaskInstance> leaving, boolean committed) {
    loop.awaitWorkers(leaving);
    for (TaskInstance t : leaving) {
      try {
        t.close();
      } catch (Exception e) {
        LOG.warn("container {}: task {} failed to close", loop.containerId(), t.name, e);
      }
    }
    // Their stores close first: the checkpoint layout the loop makes next must not hold their
    // changelogs, or a later commit would write a record for a task another member owns.
    for (TaskInstance t : leaving) {
      source.release(t.number, committed);
    }
    loop.removeTasks(leaving);
  }

  @Override
  public void assigned(Set<Integer> numbers) {
    Set<Integer> fresh = new TreeSet<>(numbers);
    fresh.removeAll(tasks());
    if (fresh.isEmpty()) {
      return;
    }
    long started = System.nanoTime();
    if (!loop.tasks().isEmpty() && !loop.commit()) {
      return; // fenced: the container lost every task; the membership starts over
    }
    long committed = System.nanoTime();
    List<TaskSpec> specs = source.take(fresh);
    long taken = System.nanoTime();
    loop.addTasks(specs);
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
    LOG.info("container {}: assigned task(s) {} (ready in {} ms: commit {} ms, checkpoints and "
            + "stores {} ms, start {} ms)", loop.containerId(), fresh, lastAssignMs,
        (committed - started) / 1_000_000, (taken - committed) / 1_000_000,
        (ready - taken) / 1_000_000);
  }

  @Override
  public Set<Integer> tasks() {
    Set<Integer> numbers = new LinkedHashSet<>();
    for (TaskInstance t : loop.tasks()) {
      numbers.add(t.number);
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
