package io.millrace.kafka.coordinate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Placement rules, checked on hand-made groups and on random ones: balance over processes and
 * containers, stickiness, state-awareness, and the cooperative rule (a task that changes owner
 * waits a round), with the protocol's two rounds simulated.
 */
class TaskPlacementTest {
  private static final TaskPlacement.RestoreCost FREE = (task, process) -> 0;

  private static TaskPlacement.Member member(String process, int container, Integer... owned) {
    return new TaskPlacement.Member(process + "-" + container, process, container,
        new TreeSet<>(List.of(owned)), 1);
  }

  /** Runs rounds of the protocol until the placement is stable; returns the final one. */
  private static Map<String, Set<Integer>> settle(int tasks, List<TaskPlacement.Member> members,
      TaskPlacement.RestoreCost cost, int[] movedOut) {
    List<TaskPlacement.Member> now = members;
    Map<String, Set<Integer>> placed = null;
    for (int round = 0; round < 5; round++) {
      placed = TaskPlacement.place(tasks, now, cost);
      boolean changed = false;
      List<TaskPlacement.Member> next = new ArrayList<>();
      for (TaskPlacement.Member m : now) {
        Set<Integer> got = placed.get(m.memberId());
        for (int t : m.owned()) {
          if (!got.contains(t)) {
            movedOut[0]++; // revoked: it moves
          }
        }
        changed |= !got.equals(m.owned());
        next.add(new TaskPlacement.Member(m.memberId(), m.processId(), m.containerId(),
            new TreeSet<>(got), m.generation() + 1));
      }
      now = next;
      if (!changed) {
        return placed;
      }
    }
    throw new AssertionError("no stable placement after 5 rounds: " + placed);
  }

  @Test
  void aNewMemberGetsItsShareFromEachAndNothingElseMoves() {
    List<TaskPlacement.Member> members = List.of(
        member("p1", 0, 0, 1, 2, 3),
        member("p2", 0, 4, 5, 6, 7),
        member("p3", 0, 8, 9, 10, 11),
        member("p4", 0));
    // Round one: nothing is given to p4 yet (its tasks are still owned); each owner gives one up.
    Map<String, Set<Integer>> first = TaskPlacement.place(12, members, FREE);
    assertThat(first.get("p4-0")).isEmpty();
    for (String owner : List.of("p1-0", "p2-0", "p3-0")) {
      assertThat(first.get(owner)).hasSize(3);
    }
    int[] moved = {0};
    Map<String, Set<Integer>> last = settle(12, members, FREE, moved);
    assertThat(moved[0]).isEqualTo(3);
    assertThat(last.get("p4-0")).hasSize(3);
  }

  @Test
  void containersOfOneProcessShareItsTasksAndProcessesShareByContainers() {
    List<TaskPlacement.Member> members = List.of(
        member("p1", 0), member("p1", 1), member("p2", 0), member("p2", 1));
    Map<String, Set<Integer>> placed = TaskPlacement.place(10, members, FREE);
    int p1 = placed.get("p1-0").size() + placed.get("p1-1").size();
    int p2 = placed.get("p2-0").size() + placed.get("p2-1").size();
    assertThat(p1).isEqualTo(5);
    assertThat(p2).isEqualTo(5);
    for (Set<Integer> tasks : placed.values()) {
      assertThat(tasks.size()).isBetween(2, 3);
    }
  }

  @Test
  void anUnownedStatefulTaskGoesWhereItHasTheLeastToRestore() {
    // p1 died; its tasks 0 and 1 have fresh local copies on p3 and p2 respectively.
    List<TaskPlacement.Member> members = List.of(
        member("p2", 0, 2, 3), member("p3", 0, 4, 5));
    TaskPlacement.RestoreCost cost = (task, process) -> {
      if (task == 0) {
        return process.equals("p3") ? 10 : 1_000_000;
      }
      if (task == 1) {
        return process.equals("p2") ? 10 : 1_000_000;
      }
      return 1_000_000;
    };
    Map<String, Set<Integer>> placed = TaskPlacement.place(6, members, cost);
    assertThat(placed.get("p3-0")).contains(0);
    assertThat(placed.get("p2-0")).contains(1);
  }

  @Test
  void aDisputedTaskBelongsToTheNewestGeneration() {
    List<TaskPlacement.Member> members = List.of(
        new TaskPlacement.Member("old", "p1", 0, Set.of(0, 1), 3),
        new TaskPlacement.Member("new", "p2", 0, Set.of(1), 5));
    Map<String, Set<Integer>> placed = TaskPlacement.place(2, members, FREE);
    assertThat(placed.get("new")).contains(1);
    assertThat(placed.get("old")).doesNotContain(1);
  }

  @Test
  void randomGroupsAreBalancedStickyAndNeverHandAnOwnedTaskToAnother() {
    Random random = new Random(42);
    for (int trial = 0; trial < 2_000; trial++) {
      int tasks = 1 + random.nextInt(40);
      int processes = 1 + random.nextInt(5);
      int containers = 1 + random.nextInt(3); // the same in every process
      List<TaskPlacement.Member> members = new ArrayList<>();
      Map<Integer, String> owner = new HashMap<>();
      for (int p = 0; p < processes; p++) {
        for (int c = 0; c < containers; c++) {
          members.add(new TaskPlacement.Member("p" + p + "-" + c, "p" + p, c, new TreeSet<>(),
              1));
        }
      }
      // Random ownership, as members left behind by earlier rounds and departures.
      for (int t = 0; t < tasks; t++) {
        if (random.nextInt(3) > 0) {
          TaskPlacement.Member m = members.get(random.nextInt(members.size()));
          m.owned().add(t);
          owner.put(t, m.memberId());
        }
      }
      long[][] costs = new long[tasks][processes];
      for (long[] row : costs) {
        for (int p = 0; p < processes; p++) {
          row[p] = random.nextInt(4) * 1_000L;
        }
      }
      TaskPlacement.RestoreCost cost = (t, process) ->
          costs[t][Integer.parseInt(process.substring(1))];

      Map<String, Set<Integer>> round = TaskPlacement.place(tasks, members, cost);
      Set<Integer> seen = new TreeSet<>();
      for (Map.Entry<String, Set<Integer>> e : round.entrySet()) {
        for (int t : e.getValue()) {
          assertThat(seen.add(t)).as("task %d placed once", t).isTrue();
          String current = owner.get(t);
          assertThat(current == null || current.equals(e.getKey()))
              .as("task %d, owned by %s, given to %s in the same round", t, current, e.getKey())
              .isTrue();
        }
      }
      int[] moved = {0};
      Map<String, Set<Integer>> last = settle(tasks, members, cost, moved);
      Set<Integer> all = new TreeSet<>();
      int min = Integer.MAX_VALUE;
      int max = 0;
      Map<String, Integer> byProcess = new HashMap<>();
      for (Map.Entry<String, Set<Integer>> e : last.entrySet()) {
        all.addAll(e.getValue());
        min = Math.min(min, e.getValue().size());
        max = Math.max(max, e.getValue().size());
        byProcess.merge(e.getKey().substring(0, e.getKey().indexOf('-')), e.getValue().size(),
            Integer::sum);
      }
      assertThat(all).as("every task placed").hasSize(tasks);
      assertThat(max - min).as("container counts differ by at most one").isLessThanOrEqualTo(1);
      int pmin = byProcess.values().stream().mapToInt(Integer::intValue).min().orElse(0);
      int pmax = byProcess.values().stream().mapToInt(Integer::intValue).max().orElse(0);
      assertThat(pmax - pmin).as("process counts differ by at most one").isLessThanOrEqualTo(1);
      // Sticky: a member owning no more than the smallest share keeps everything it owns.
      int floor = tasks / members.size();
      for (TaskPlacement.Member m : members) {
        if (m.owned().size() <= floor) {
          assertThat(round.get(m.memberId())).as("%s keeps what it owns", m.memberId())
              .containsAll(m.owned());
        }
      }
    }
  }
}
