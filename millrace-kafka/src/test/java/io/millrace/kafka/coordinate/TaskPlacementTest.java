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

  /** The process of a member id made by {@link #member}. */
  private static String processOf(String memberId) {
    return memberId.substring(0, memberId.indexOf('-'));
  }

  /** Each task's standby processes, from a placement. */
  private static Map<Integer, List<String>> standbyProcesses(TaskPlacement.Placement placed) {
    Map<Integer, List<String>> byTask = new HashMap<>();
    placed.standby().forEach((memberId, tasks) -> tasks.forEach(t ->
        byTask.computeIfAbsent(t, k -> new ArrayList<>()).add(processOf(memberId))));
    return byTask;
  }

  /** Each task's active process, from a placement. */
  private static Map<Integer, String> activeProcesses(TaskPlacement.Placement placed) {
    Map<Integer, String> byTask = new HashMap<>();
    placed.active().forEach((memberId, tasks) -> tasks.forEach(t ->
        byTask.put(t, processOf(memberId))));
    return byTask;
  }

  @Test
  void withTwoProcessesAndOneReplicaEveryTaskHasItsStandbyOnTheOtherProcess() {
    List<TaskPlacement.Member> members = List.of(
        member("p1", 0, 0, 1, 2), member("p1", 1, 3, 4, 5),
        member("p2", 0, 6, 7, 8), member("p2", 1, 9, 10, 11));
    TaskPlacement.Placement placed = TaskPlacement.place(12, members, FREE, 1, Map.of(), TaskPlacement.Warmups.NONE);
    Map<Integer, String> active = activeProcesses(placed);
    Map<Integer, List<String>> standby = standbyProcesses(placed);
    for (int t = 0; t < 12; t++) {
      assertThat(standby.get(t)).as("task %d's standby copies", t).hasSize(1)
          .doesNotContain(active.get(t));
    }
    // Spread over each process's containers too.
    for (TaskPlacement.Member m : members) {
      assertThat(placed.standby().get(m.memberId())).as(m.memberId()).hasSize(3);
    }
  }

  @Test
  void standbysAreNeverWithTheirActiveNorTwiceInAProcessAndAreBalanced() {
    Random random = new Random(7);
    for (int trial = 0; trial < 1_000; trial++) {
      int tasks = 1 + random.nextInt(40);
      int processes = 1 + random.nextInt(5);
      int replicas = random.nextInt(4);
      List<TaskPlacement.Member> members = new ArrayList<>();
      for (int p = 0; p < processes; p++) {
        for (int c = 0; c < 1 + random.nextInt(3); c++) {
          members.add(new TaskPlacement.Member("p" + p + "-" + c, "p" + p, c, new TreeSet<>(),
              1));
        }
      }
      for (int t = 0; t < tasks; t++) {
        if (random.nextInt(3) > 0) {
          members.get(random.nextInt(members.size())).owned().add(t);
        }
      }
      Map<Integer, String> owner = new HashMap<>();
      members.forEach(m -> m.owned().forEach(t -> owner.put(t, m.processId())));
      long[][] costs = new long[tasks][processes];
      for (long[] row : costs) {
        for (int p = 0; p < processes; p++) {
          row[p] = random.nextInt(4) * 1_000L;
        }
      }
      TaskPlacement.Placement placed = TaskPlacement.place(tasks, members,
          (t, process) -> costs[t][Integer.parseInt(process.substring(1))], replicas, Map.of(),
          TaskPlacement.Warmups.NONE);
      Map<Integer, String> active = activeProcesses(placed);
      Map<Integer, List<String>> standby = standbyProcesses(placed);
      Map<String, Integer> held = new HashMap<>();
      for (int t = 0; t < tasks; t++) {
        List<String> copies = standby.getOrDefault(t, List.of());
        // Every other process, up to the replicas wanted; one fewer at most while the task
        // moves (left out of this round: its old and new owners' processes are both excluded).
        int most = Math.max(0, Math.min(replicas, processes - 1));
        int least = active.containsKey(t) ? most : Math.max(0, Math.min(replicas, processes - 2));
        assertThat(copies).as("trial %d: task %d's copies", trial, t)
            .hasSizeBetween(least, most)
            .doesNotHaveDuplicates()
            .doesNotContain(active.get(t))
            .doesNotContain(owner.get(t));
        copies.forEach(p -> held.merge(p, 1, Integer::sum));
      }
      if (replicas > 0 && processes > 1 && owner.isEmpty()) {
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int p = 0; p < processes; p++) {
          min = Math.min(min, held.getOrDefault("p" + p, 0));
          max = Math.max(max, held.getOrDefault("p" + p, 0));
        }
        assertThat(max - min).as("trial %d: copies per process %s", trial, held)
            .isLessThanOrEqualTo(Math.max(2, replicas + 1));
      }
    }
  }

  @Test
  void aStandbyGoesToAnotherRackThanItsActiveWhereThereIsOne() {
    List<TaskPlacement.Member> members = List.of(
        member("p1", 0, 0, 1, 2), member("p2", 0, 3, 4, 5),
        member("p3", 0, 6, 7, 8), member("p4", 0, 9, 10, 11));
    Map<String, String> racks = Map.of("p1", "east", "p2", "east", "p3", "west", "p4", "west");
    TaskPlacement.Placement placed = TaskPlacement.place(12, members, FREE, 1, racks,
        TaskPlacement.Warmups.NONE);
    Map<Integer, String> active = activeProcesses(placed);
    standbyProcesses(placed).forEach((t, copies) ->
        assertThat(racks.get(copies.get(0))).as("rack of task %d's copy", t)
            .isNotEqualTo(racks.get(active.get(t))));
  }

  @Test
  void aStandbyStaysWhereItsLocalFilesAreFreshest() {
    List<TaskPlacement.Member> members = List.of(
        member("p1", 0, 0, 1), member("p2", 0, 2, 3), member("p3", 0, 4, 5));
    // p3 followed task 0 and p2 task 4 until now: their files are the freshest.
    TaskPlacement.RestoreCost cost = (task, process) ->
        task == 0 && process.equals("p3") || task == 4 && process.equals("p2") ? 5 : 1_000;
    Map<Integer, List<String>> standby = standbyProcesses(
        TaskPlacement.place(6, members, cost, 1, Map.of(), TaskPlacement.Warmups.NONE));
    assertThat(standby.get(0)).containsExactly("p3");
    assertThat(standby.get(4)).containsExactly("p2");
  }

  /**
   * The copies of each process's tasks are split evenly among the others, so when it dies the
   * balanced placement of its tasks puts each where its copy is: no task of it restores in full
   * (seen in the failover benchmark: one process held five of a dead one's eight copies, the
   * other three, and balance sent a fifth task to the process without its copy).
   */
  @Test
  void eachProcessesCopiesAreSplitEvenlySoItsFailureIsTakenOverWarm() {
    List<TaskPlacement.Member> members = List.of(
        member("a", 0, 16, 17, 18, 19, 20, 21, 22, 23),
        member("b", 0, 0, 2, 4, 6, 8, 10, 12, 14),
        member("c", 0, 1, 3, 5, 7, 9, 11, 13, 15));
    TaskPlacement.Placement placed = TaskPlacement.place(24, members, FREE, 1, Map.of(),
        TaskPlacement.Warmups.NONE);
    Map<Integer, String> active = activeProcesses(placed);
    Map<Integer, List<String>> standby = standbyProcesses(placed);
    for (String dead : List.of("a", "b", "c")) {
      Map<String, Integer> keepers = new HashMap<>();
      active.forEach((t, p) -> {
        if (p.equals(dead)) {
          keepers.merge(standby.get(t).get(0), 1, Integer::sum);
        }
      });
      assertThat(keepers.values()).as("who keeps %s's copies: %s", dead, keepers)
          .containsExactly(4, 4);
    }

    // b dies: its tasks go where their copies are (each a cheap tail there, a full restore
    // anywhere else).
    TaskPlacement.RestoreCost copies = (task, process) ->
        standby.get(task).contains(process) ? 10 : 100_000;
    List<TaskPlacement.Member> survivors = List.of(members.get(0), members.get(2));
    Map<Integer, String> after = activeProcesses(TaskPlacement.place(24, survivors, copies, 1,
        Map.of(), TaskPlacement.Warmups.NONE));
    for (int t : members.get(1).owned()) {
      assertThat(after.get(t)).as("task %d of the dead process", t)
          .isEqualTo(standby.get(t).get(0));
    }
  }

  @Test
  void noReplicasOrOneProcessPlacesNoStandby() {
    List<TaskPlacement.Member> one = List.of(member("p1", 0, 0, 1), member("p1", 1, 2, 3));
    TaskPlacement.Placement placed = TaskPlacement.place(4, one, FREE, 2, Map.of(),
        TaskPlacement.Warmups.NONE);
    placed.standby().values().forEach(s -> assertThat(s).isEmpty());
    List<TaskPlacement.Member> two = List.of(member("p1", 0, 0, 1), member("p2", 0, 2, 3));
    TaskPlacement.place(4, two, FREE, 0, Map.of(), TaskPlacement.Warmups.NONE).standby().values()
        .forEach(s -> assertThat(s).isEmpty());
  }

  /** A process with no local state for any task: everything there is a full restore. */
  private static final TaskPlacement.RestoreCost COLD_NEWCOMER = (task, process) ->
      process.equals("p4") ? 50_000 : 0;

  @Test
  void aJoinerWarmsUpWhatItWillTakeWhileTheOwnersKeepRunningIt() {
    List<TaskPlacement.Member> members = List.of(
        member("p1", 0, 0, 1, 2, 3), member("p2", 0, 4, 5, 6, 7), member("p3", 0, 8, 9, 10, 11),
        member("p4", 0));
    TaskPlacement.Placement placed = TaskPlacement.place(12, members, COLD_NEWCOMER, 0,
        Map.of(), new TaskPlacement.Warmups(10_000, 2));
    // Nothing moves yet: every owner keeps its four; the joiner warms up two (the most at once).
    assertThat(placed.active().get("p1-0")).containsExactly(0, 1, 2, 3);
    assertThat(placed.active().get("p2-0")).containsExactly(4, 5, 6, 7);
    assertThat(placed.active().get("p3-0")).containsExactly(8, 9, 10, 11);
    assertThat(placed.active().get("p4-0")).isEmpty();
    assertThat(placed.warmup().get("p4-0")).hasSize(2);

    // Once its copies caught up (its files now hold them), the next round moves them there.
    Set<Integer> warm = placed.warmup().get("p4-0");
    TaskPlacement.RestoreCost warmNow = (task, process) ->
        process.equals("p4") && !warm.contains(task) ? 50_000 : 0;
    TaskPlacement.Placement next = TaskPlacement.place(12, members, warmNow, 0, Map.of(),
        new TaskPlacement.Warmups(10_000, 2));
    assertThat(warm).containsExactly(3, 7);
    assertThat(next.active().get("p1-0")).containsExactly(0, 1, 2); // 3 revoked: it moves
    assertThat(next.active().get("p2-0")).containsExactly(4, 5, 6);
    assertThat(next.active().get("p3-0")).containsExactly(8, 9, 10, 11); // 11 warms up next
    assertThat(next.warmup().get("p4-0")).containsExactly(11);
  }

  @Test
  void withoutWarmUpsOrWithLittleToRestoreTasksMoveAtOnce() {
    List<TaskPlacement.Member> members = List.of(
        member("p1", 0, 0, 1, 2, 3), member("p2", 0, 4, 5, 6, 7), member("p3", 0, 8, 9, 10, 11),
        member("p4", 0));
    TaskPlacement.Placement cold = TaskPlacement.place(12, members, COLD_NEWCOMER, 0, Map.of(),
        new TaskPlacement.Warmups(10_000, 0));
    assertThat(cold.warmup().get("p4-0")).isEmpty();
    assertThat(cold.active().get("p1-0")).hasSize(3); // revoked now, taken by p4 next round
    TaskPlacement.Placement cheap = TaskPlacement.place(12, members, COLD_NEWCOMER, 0, Map.of(),
        new TaskPlacement.Warmups(100_000, 2));
    assertThat(cheap.warmup().get("p4-0")).isEmpty();
    assertThat(cheap.active().get("p1-0")).hasSize(3);
  }

  @Test
  void aTaskWhoseOwnerIsGoneIsPlacedAtOnceEvenCold() {
    List<TaskPlacement.Member> members = List.of(member("p1", 0, 0, 1), member("p4", 0));
    TaskPlacement.Placement placed = TaskPlacement.place(4, members, COLD_NEWCOMER, 0, Map.of(),
        new TaskPlacement.Warmups(10, 2));
    Set<Integer> all = new TreeSet<>(placed.active().get("p1-0"));
    all.addAll(placed.active().get("p4-0"));
    assertThat(all).containsExactly(0, 1, 2, 3);
  }
}
