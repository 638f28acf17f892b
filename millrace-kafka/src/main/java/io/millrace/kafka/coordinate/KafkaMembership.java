package io.millrace.kafka.coordinate;

import io.millrace.spi.coordinator.ContainerMembership;
import io.millrace.spi.coordinator.MembershipListener;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One container's membership in the job's Kafka consumer group: a {@code KafkaConsumer} that
 * subscribes to the job's input topics with {@link TaskAssignor} and never fetches (whatever it is
 * assigned it pauses at once; the container's own consumer reads the data). Its poll, with a zero
 * timeout, runs on the container's membership thread, so the rebalance callbacks do too: a
 * revocation waits there while the container commits and closes the tasks (its loop goes on with
 * the others), before the partitions are released; an assignment hands the tasks over. Kafka's
 * heartbeat thread keeps the membership alive between polls, up to the rebalance timeout.
 *
 * <p>The membership's thread only, but for {@link #mayCommit} and {@link #groupMetadata}, which
 * the container reads while it holds its ownership permit (no poll runs then, or the poll waits
 * in a revocation's callback), and {@link #lostAll} and {@link #tasksStarted} (any thread).
 */
final class KafkaMembership implements ContainerMembership, ConsumerRebalanceListener {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaMembership.class);
  private final KafkaCoordinator coordinator;
  private final int containerId;
  private final MembershipListener listener;
  private KafkaConsumer<byte[], byte[]> consumer;
  private boolean joined;
  private volatile boolean leaving;
  /** Between sending a JoinGroup and receiving the assignment: commits wait. */
  private volatile boolean rebalancing;
  /** Dropping the assignment after a refused commit: the callbacks it causes change nothing. */
  private boolean resetting;
  /** The container found it lost every task (any thread): the next poll resets the consumer. */
  private volatile boolean resetPending;
  /**
   * The member's group metadata as of the last poll, or of the rebalance callback under way: what
   * a commit proves ownership with, read by the container's threads (the consumer itself may not
   * be called from two threads at once, and a revocation's commit runs while its callback holds
   * it).
   */
  private volatile org.apache.kafka.clients.consumer.ConsumerGroupMetadata group;
  // The last rebalance, for the job's status (the membership's thread).
  private long rebalanceStartMs = -1;
  /** When the last assignment began (epoch ms), or -1: what a later start counts from. */
  private volatile long assignStartMs = -1;
  /** The next JoinGroup continues the current rebalance (see {@link #rebalanceStarted}). */
  private boolean followUp;
  private final Set<Integer> revokedThisRound = new TreeSet<>();
  private long revokeMs;
  private Set<Integer> revoked = new java.util.TreeSet<>();
  private Set<Integer> lost = new java.util.TreeSet<>();
  private volatile ProcessStatus.Container status = ProcessStatus.Container.idle();
  /** The standby copies this container keeps, as the last assignment gave them. */
  private volatile Set<Integer> standbys = Set.of();
  /**
   * The copies of the assignment being completed, told to the listener only after its tasks
   * ({@link #onPartitionsAssigned}), or null: a copy of a task this container takes now is then
   * handed over open instead of closed first (the membership's thread).
   */
  private Set<Integer> copiesToTell;
  /** Its warm-up copies that have not asked for their rebalance yet (the membership's thread). */
  private Set<Integer> warmups = Set.of();
  private long warmupsSince;
  private long nextWarmupCheck;
  private long joinDeadline;
  /** What a rebalance callback threw: rethrown by {@link #poll} as it is. */
  private RuntimeException callbackFailure;

  KafkaMembership(KafkaCoordinator coordinator, int containerId, MembershipListener listener) {
    this.coordinator = coordinator;
    this.containerId = containerId;
    this.listener = listener;
  }

  /** Creates the member consumer and subscribes; the join happens over the next polls. */
  void start() {
    consumer = new KafkaConsumer<>(coordinator.memberProperties(containerId, this));
    consumer.subscribe(coordinator.inputTopics(), this);
    group = consumer.groupMetadata();
    joinDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(coordinator.joinTimeoutMs());
  }

  @Override
  public void poll() {
    if (resetPending) {
      reset();
    }
    coordinator.refreshStatus();
    try {
      consumer.poll(Duration.ZERO);
      group = consumer.groupMetadata();
    } catch (FencedInstanceIdException e) {
      throw new IllegalStateException("container " + containerId + " was fenced out of group "
          + coordinator.groupId() + ": another process joined with the same "
          + "job.instance.id (" + coordinator.instanceId() + "); each process needs its own", e);
    } catch (KafkaException e) {
      RuntimeException thrown = callbackFailure;
      callbackFailure = null;
      if (thrown != null) {
        throw thrown; // the container's own failure (a restore, a task's init), as it was
      }
      throw new IllegalStateException("container " + containerId + ": membership in group "
          + coordinator.groupId() + " on " + coordinator.where() + " failed: " + e, e);
    }
    checkWarmups();
    if (!joined && !group.memberId().isEmpty()) {
      joined = true; // the group's coordinator answered; a rebalance may still take its time
    }
    if (!joined && System.nanoTime() - joinDeadline > 0) {
      throw new IllegalStateException("container " + containerId + " could not join group "
          + coordinator.groupId() + " on " + coordinator.where() + " within "
          + coordinator.joinTimeoutMs() + " ms (job.coordinator.join.timeout.ms): is the "
          + "broker reachable, and does the group's coordinator answer?");
    }
  }

  @Override
  public long pollIntervalNanos() {
    return coordinator.pollIntervalNanos();
  }

  /**
   * No commit between this member's JoinGroup and its assignment: the poll that sent the join
   * returned at once, the group may be at its next generation before this consumer knows, and a
   * commit with the old one would be refused as if the tasks were lost (Kafka Streams skips
   * commits during a rebalance for the same reason).
   */
  @Override
  public boolean mayCommit() {
    return !rebalancing && !resetPending;
  }

  void rebalanceStarted() {
    rebalancing = true;
    if (followUp) {
      // The second round of a cooperative rebalance (after a revoke) or the rejoin after a loss:
      // the status shows the rebalance as a whole, so what was given up or lost stays in it.
      followUp = false;
      return;
    }
    rebalanceStartMs = System.currentTimeMillis();
    revokeMs = 0;
    revoked = new TreeSet<>();
    lost = new TreeSet<>();
  }

  /** This container as the job's status shows it, with its standby copies' lag as of now. */
  ProcessStatus.Container status() {
    Map<Integer, Long> lag = new TreeMap<>(listener.standbyLag());
    for (int t : standbys) {
      lag.putIfAbsent(t, -1L);
    }
    return status.withStandbys(lag);
  }

  /**
   * Tasks of the last assignment that restored beside the others started now: the status's
   * assignment time runs until the last of them.
   */
  @Override
  public synchronized void tasksStarted(Set<Integer> tasks) {
    ProcessStatus.Container s = status; // (synchronized: the membership's thread writes it too)
    if (assignStartMs < 0 || tasks.stream().noneMatch(s.added()::contains)) {
      return; // from an earlier rebalance than the one the status shows
    }
    status = s.withAssignMs(Math.max(s.assignMs(), System.currentTimeMillis() - assignStartMs));
    coordinator.statusChanged();
  }

  private synchronized void rebalanced(long assignStartMs, long assignMs, Set<Integer> added) {
    this.assignStartMs = assignStartMs;
    followUp = !revokedThisRound.isEmpty(); // a cooperative revoke is followed by a second round
    revokedThisRound.clear();
    long join = rebalanceStartMs < 0 ? 0
        : Math.max(0, assignStartMs - rebalanceStartMs - revokeMs);
    status = new ProcessStatus.Container(new TreeSet<>(listener.tasks()),
        rebalanceStartMs, join, revokeMs, assignMs, added, revoked, lost, Map.of());
    coordinator.statusChanged();
  }

  /**
   * A commit was refused: the container dropped every task. The consumer may not know yet (a
   * commit raced ahead of its heartbeat), so it drops its partitions too and joins again as a
   * member that owns nothing; the group gives it tasks afresh.
   */
  @Override
  public void lostAll() {
    // Maybe called from inside a rebalance callback (a commit before an assignment): the consumer
    // is reset at the next poll, outside the consumer's own call.
    resetPending = true;
  }

  private void reset() {
    resetPending = false;
    resetting = true;
    try {
      consumer.unsubscribe();
    } finally {
      resetting = false;
    }
    consumer.subscribe(coordinator.inputTopics(), this);
  }

  @Override
  public void leave(boolean clean) {
    leaving = true; // the container committed and closed its tasks: callbacks have nothing to do
    if (consumer == null) {
      return;
    }
    try {
      // A dynamic member leaves the group at once, so the others take over now. A static member
      // (job.instance.id) stopped cleanly stays until its session times out, so that a restart
      // in time moves nothing; one that failed leaves at once, as it will not come back soon.
      CloseOptions options = CloseOptions.timeout(Duration.ofSeconds(10));
      if (!clean) {
        options = options.withGroupMembershipOperation(
            CloseOptions.GroupMembershipOperation.LEAVE_GROUP);
      }
      consumer.close(options);
    } catch (RuntimeException e) {
      LOG.warn("container {}: leaving group {} failed: {}", containerId, coordinator.groupId(),
          e.toString());
    }
  }

  /** What this container tells the group about itself (its subscription's user data). */
  MemberInfo memberInfo() {
    return new MemberInfo(coordinator.processId(), coordinator.host(), coordinator.instanceId(),
        containerId, coordinator.containerCount(), listener.localState(), coordinator.rack());
  }

  List<String> inputTopics() {
    return coordinator.inputTopics();
  }

  String groupId() {
    return coordinator.groupId();
  }

  TaskPlacement.RestoreCost restoreCost(int tasks, Collection<MemberInfo> members) {
    return coordinator.restoreCost(tasks, members);
  }

  /**
   * The member's group metadata (its generation and id) as of the last poll, or of the rebalance
   * callback under way: what its commits prove ownership with. The container reads it while it
   * holds its ownership permit, so the generation cannot change under a commit.
   */
  org.apache.kafka.clients.consumer.ConsumerGroupMetadata groupMetadata() {
    return group;
  }

  int taskCount() {
    return coordinator.taskCount();
  }

  int standbyReplicas() {
    return coordinator.standbyReplicas();
  }

  TaskPlacement.Warmups warmups() {
    return coordinator.warmups();
  }

  /**
   * The group's leader gave this container these copies (this round's, in full): standby ones,
   * and warm-ups of tasks it is to take once they have caught up.
   */
  void copiesAssigned(Set<Integer> standby, Set<Integer> warmup) {
    if (leaving) {
      return;
    }
    Set<Integer> all = new TreeSet<>(standby);
    all.addAll(warmup);
    standbys = all;
    warmups = warmup;
    warmupsSince = System.nanoTime();
    copiesToTell = all;
  }

  /**
   * Asks for a rebalance once this container's warm-up copies have caught up (within {@code
   * job.acceptable.recovery.lag}), so the leader moves their tasks here; or, as Kafka Streams'
   * probing rebalance does, after {@link #WARMUP_PROBE_NANOS} if they never do. Checked once a
   * second, between rebalances.
   */
  private void checkWarmups() {
    long now = System.nanoTime();
    if (warmups.isEmpty() || rebalancing || now - nextWarmupCheck < 0) {
      return;
    }
    nextWarmupCheck = now + TimeUnit.SECONDS.toNanos(1);
    Map<Integer, Long> lag = listener.standbyLag();
    long acceptable = coordinator.warmups().acceptableLag();
    boolean caughtUp = true;
    for (int t : warmups) {
      Long behind = lag.get(t);
      caughtUp &= behind != null && behind >= 0 && behind <= acceptable;
    }
    if (caughtUp || now - warmupsSince > WARMUP_PROBE_NANOS) {
      LOG.info("container {}: warm-up copies of task(s) {} {}: asking group {} to rebalance",
          containerId, warmups, caughtUp ? "caught up" : "still behind after 10 min",
          coordinator.groupId());
      warmups = Set.of();
      consumer.enforceRebalance("warm-up copies ready");
    }
  }

  /** How long warm-ups may take before their member asks for a rebalance anyway. */
  private static final long WARMUP_PROBE_NANOS = TimeUnit.MINUTES.toNanos(10);

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    group = consumer.groupMetadata(); // the generation the revoke's commit proves ownership with
    Set<Integer> tasks = tasks(partitions);
    if (!leaving && !resetting && !tasks.isEmpty()) {
      long started = System.currentTimeMillis();
      call(() -> listener.revoked(tasks));
      revokeMs += System.currentTimeMillis() - started;
      revoked.addAll(tasks);
      revokedThisRound.addAll(tasks);
    }
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    group = consumer.groupMetadata();
    rebalancing = false; // it rejoins from scratch; the join will say so again
    Set<Integer> tasks = tasks(partitions);
    if (!leaving && !resetting && !tasks.isEmpty()) {
      call(() -> listener.lost(tasks));
      lost.addAll(tasks);
      followUp = true; // it rejoins at once; that join belongs to this rebalance
    }
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    group = consumer.groupMetadata();
    joined = true;
    rebalancing = false; // called at the end of every rebalance, with what was added (or none)
    consumer.pause(partitions); // this consumer only holds the membership; it never fetches
    Set<Integer> tasks = tasks(partitions);
    long started = System.currentTimeMillis();
    if (!leaving && !tasks.isEmpty()) {
      call(() -> listener.assigned(tasks));
    }
    Set<Integer> copies = copiesToTell;
    copiesToTell = null;
    if (!leaving && copies != null) {
      call(() -> listener.standbys(copies));
    }
    if (!leaving) {
      rebalanced(started, System.currentTimeMillis() - started, tasks);
    }
  }

  private void call(Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      callbackFailure = e; // Kafka wraps what a callback throws: poll rethrows the original
      throw e;
    }
  }

  private static Set<Integer> tasks(Collection<TopicPartition> partitions) {
    Set<Integer> tasks = new TreeSet<>();
    for (TopicPartition tp : partitions) {
      tasks.add(tp.partition());
    }
    return tasks;
  }
}
