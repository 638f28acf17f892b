package io.millrace.core.coordinate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.millrace.spi.coordinator.ContainerMembership;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.spi.coordinator.MembershipListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link JobCoordinator} (with its {@link ContainerMembership}s) must do, run against
 * each implementation (a subclass per coordinator: local, Kafka), as {@link
 * io.millrace.core.system.SystemConsumerContract} does for consumers.
 *
 * <p>The test is every container's loop: it polls each membership in turn on its own thread (each
 * membership is only ever called from that one thread, as a loop's is) until what it waits for
 * holds, within a deadline sized for a busy machine. Every listener checks, as it is called, the
 * one rule of ownership: a task is assigned to a container only while no other container holds
 * it, and revoked or lost only from the container that holds it.
 *
 * <p>What it proves: every task goes to exactly one container, the containers' shares within one
 * task of each other; a poll tells the listener what the membership's partner decided, and what
 * the listener throws comes out of that poll as it was; {@code leave} and {@code close} end a
 * membership; a join for a container the process does not have is refused. For a coordinator that
 * shares tasks among processes, also: a second process takes a share, each task it takes revoked
 * from its previous container first, and a process that leaves cleanly has its tasks taken by the
 * others.
 */
public abstract class JobCoordinatorContract {
  /** How long a membership may take to settle (a group's rebalance, on a busy machine). */
  protected static final Duration DEADLINE = Duration.ofMinutes(2);

  /**
   * A process of this test's job (a second call: another process of the same job): {@code tasks}
   * tasks, {@code containers} containers in the process. Each test uses one task count.
   */
  protected abstract JobCoordinator newCoordinator(int tasks, int containers) throws Exception;

  /** Whether the coordinator shares a job's tasks among several processes. */
  protected abstract boolean sharesAmongProcesses();

  private final List<JobCoordinator> coordinators = new ArrayList<>();
  private final List<Member> members = new ArrayList<>();
  /** Which member holds each task now, over every member of the job. */
  private final Map<Integer, Member> owners = new HashMap<>();
  /** What broke the rule of ownership, as the listeners saw it. */
  private final List<String> violations = new ArrayList<>();
  /** Every callback, in order: "assigned 3 to p1/c0", "revoked 3 from p0/c1". */
  private final List<String> events = new ArrayList<>();

  /** A container of a process: its listener, recording and checking what it is told. */
  protected final class Member implements MembershipListener {
    final String name;
    final Set<Integer> tasks = new TreeSet<>();
    ContainerMembership membership;
    RuntimeException failAssign;
    boolean left;

    Member(String name) {
      this.name = name;
    }

    @Override
    public void revoked(Set<Integer> revoked) {
      gone("revoked", revoked);
    }

    @Override
    public void lost(Set<Integer> lost) {
      gone("lost", lost);
    }

    private void gone(String how, Set<Integer> gone) {
      for (int t : gone) {
        events.add(how + " " + t + " from " + name);
        if (!tasks.remove(t) || owners.get(t) != this) {
          violations.add(how + " task " + t + " from " + name + ", which did not hold it");
        }
        owners.remove(t, this);
      }
    }

    @Override
    public void assigned(Set<Integer> assigned) {
      if (failAssign != null) {
        throw failAssign;
      }
      for (int t : assigned) {
        events.add("assigned " + t + " to " + name);
        Member owner = owners.get(t);
        if (owner != null) {
          violations.add("assigned task " + t + " to " + name + " while " + owner.name
              + " held it");
        }
        owners.put(t, this);
        tasks.add(t);
      }
    }

    @Override
    public Set<Integer> tasks() {
      return new TreeSet<>(tasks);
    }

    @Override
    public Map<Integer, Map<String, Long>> localState() {
      return Map.of();
    }
  }

  @AfterEach
  void leaveAndClose() {
    for (Member m : members) {
      if (!m.left) {
        m.membership.leave(true);
      }
    }
    for (JobCoordinator c : coordinators) {
      c.close();
    }
  }

  /** A new process of the job, its containers joined (not polled yet). */
  private List<Member> process(int tasks, int containers) throws Exception {
    JobCoordinator coordinator = newCoordinator(tasks, containers);
    int process = coordinators.size();
    coordinators.add(coordinator);
    List<Member> joined = new ArrayList<>();
    for (int c = 0; c < containers; c++) {
      Member m = new Member("p" + process + "/c" + c);
      m.membership = coordinator.join(c, m);
      members.add(m);
      joined.add(m);
    }
    return joined;
  }

  /** Polls every member that has not left, in turn, until {@code done} holds. */
  private void pollUntil(String what, BooleanSupplier done) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + DEADLINE + " waiting for " + what
            + "; tasks held: " + held() + "; events: " + events);
      }
      for (Member m : members) {
        if (!m.left) {
          m.membership.poll();
        }
      }
      Thread.sleep(1);
    }
    assertThat(violations).as("the rule of ownership; events: %s", events).isEmpty();
  }

  private Map<String, Set<Integer>> held() {
    Map<String, Set<Integer>> held = new java.util.LinkedHashMap<>();
    for (Member m : members) {
      held.put(m.name, m.tasks());
    }
    return held;
  }

  private boolean everyTaskHeld(int tasks) {
    return owners.size() == tasks;
  }

  private static Set<Integer> range(int tasks) {
    Set<Integer> all = new TreeSet<>();
    for (int t = 0; t < tasks; t++) {
      all.add(t);
    }
    return all;
  }

  /** Every task held by exactly one of {@code among}, none by any other member. */
  private void assertEachTaskOnce(int tasks, List<Member> among) {
    List<Integer> all = new ArrayList<>();
    for (Member m : among) {
      all.addAll(m.tasks);
    }
    assertThat(all).as("tasks held: %s", held()).hasSize(tasks)
        .containsExactlyInAnyOrderElementsOf(range(tasks));
    for (Member m : members) {
      if (!among.contains(m)) {
        assertThat(m.tasks).as("tasks of %s", m.name).isEmpty();
      }
    }
  }

  @Test
  void everyTaskGoesToExactlyOneContainerAndTheSharesDifferByOneAtMost() throws Exception {
    List<Member> process = process(7, 3);
    for (Member m : process) {
      assertThat(m.membership.pollIntervalNanos()).isPositive();
    }
    // A group may hand out the tasks over several rounds (the first member to join holds more
    // for a while): the shares even out in the end.
    pollUntil("every task held, the shares even", () -> everyTaskHeld(7)
        && process.stream().allMatch(m -> m.tasks.size() >= 2 && m.tasks.size() <= 3));
    assertEachTaskOnce(7, process);
  }

  @Test
  void aSingleContainerTakesEveryTask() throws Exception {
    List<Member> process = process(4, 1);
    pollUntil("every task held", () -> everyTaskHeld(4));
    assertEachTaskOnce(4, process);
  }

  @Test
  void whatTheListenerThrowsWhenTakingTasksComesOutOfThePollAsItWas() throws Exception {
    List<Member> process = process(2, 1);
    Member m = process.get(0);
    m.failAssign = new IllegalStateException("the stores of task 0 could not be restored");
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    Throwable thrown = null;
    while (thrown == null) {
      assertThat(System.nanoTime() - deadline).as("waiting for the assignment").isNegative();
      try {
        m.membership.poll();
        Thread.sleep(1);
      } catch (IllegalStateException e) {
        thrown = e;
      }
    }
    assertThat(thrown).isSameAs(m.failAssign);
    m.membership.leave(false); // the container failed
    m.left = true;
  }

  @Test
  void aContainerLeavesCleanlyAndTheCoordinatorCloses() throws Exception {
    List<Member> process = process(3, 2);
    pollUntil("every task held", () -> everyTaskHeld(3));
    for (Member m : process) {
      m.membership.leave(true);
      m.left = true;
    }
    coordinators.remove(0).close();
    assertThat(violations).isEmpty();
  }

  @Test
  void aJoinForAContainerTheProcessDoesNotHaveIsRefused() throws Exception {
    JobCoordinator coordinator = newCoordinator(4, 2);
    coordinators.add(coordinator);
    Member stray = new Member("p0/c2");
    assertThatThrownBy(() -> coordinator.join(2, stray))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("container 2").hasMessageContaining("2 containers");
    assertThatThrownBy(() -> coordinator.join(-1, stray))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("container -1");
  }

  @Test
  void aSecondProcessTakesAShareAndEachTaskItTakesIsRevokedFromItsContainerFirst()
      throws Exception {
    assumeTrue(sharesAmongProcesses(), "this coordinator runs every task in one process");
    List<Member> first = process(6, 2);
    pollUntil("every task held by the first process", () -> everyTaskHeld(6));
    assertEachTaskOnce(6, first);
    int before = events.size();

    List<Member> second = process(6, 1);
    pollUntil("the second process holding a share", () -> everyTaskHeld(6)
        && second.get(0).tasks.size() >= 2);
    List<Member> all = new ArrayList<>(first);
    all.addAll(second);
    assertEachTaskOnce(6, all);
    for (int t : second.get(0).tasks) {
      int assignedAt = events.lastIndexOf("assigned " + t + " to " + second.get(0).name);
      boolean revokedFirst = false;
      for (int i = before; i < assignedAt; i++) {
        revokedFirst |= events.get(i).startsWith("revoked " + t + " from p0/");
      }
      assertThat(revokedFirst).as("task %d revoked before it was assigned; events: %s", t,
          events.subList(before, events.size())).isTrue();
    }
  }

  @Test
  void theTasksOfAProcessThatLeavesCleanlyAreTakenByTheOthers() throws Exception {
    assumeTrue(sharesAmongProcesses(), "this coordinator runs every task in one process");
    List<Member> first = process(4, 1);
    List<Member> second = process(4, 1);
    pollUntil("both processes holding a share", () -> everyTaskHeld(4)
        && !first.get(0).tasks.isEmpty() && !second.get(0).tasks.isEmpty());

    // The container committed and closed its tasks, then leaves: they are its own no more.
    Member leaving = second.get(0);
    leaving.revoked(new TreeSet<>(leaving.tasks));
    leaving.membership.leave(true);
    leaving.left = true;
    pollUntil("the first process holding every task", () -> first.get(0).tasks.size() == 4);
    assertEachTaskOnce(4, first);
  }
}
