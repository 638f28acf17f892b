package io.millrace.kafka.coordinate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where each task of a job goes in one rebalance: the pure part of {@link TaskAssignor}, with no
 * Kafka in it.
 *
 * <ol>
 *   <li><b>Whole tasks.</b> A task is the unit: its input partitions go together (the assignor
 *       turns tasks into partitions).
 *   <li><b>Balanced.</b> Each process gets tasks in proportion to its containers (the shares
 *       differ by at most one when processes have as many containers), and inside a process its
 *       containers' counts differ by at most one. A process or container with more tasks now gets
 *       the extra one, so balance moves as little as it can.
 *   <li><b>Sticky.</b> A container keeps the tasks it owns, up to its share: a rebalance moves
 *       only what balance requires, and what a member that left owned.
 *   <li><b>State-aware.</b> A task without an owner goes, among containers with room, to the
 *       process with the least to restore for it (its local store files are the freshest), then
 *       to the container with the fewest tasks; tasks whose state is somewhere are placed first.
 *   <li><b>Cooperative.</b> A task that changes owner is left out of this round: its owner
 *       revokes it (committing it) and the member rejoins; the next round gives it to its new
 *       owner. A task that does not move is never revoked.
 * </ol>
 *
 * <p>Deterministic: the same members and costs give the same placement.
 */
final class TaskPlacement {
  /**
   * A member of the group (one container).
   *
   * @param memberId its group member id
   * @param processId the process it runs in
   * @param containerId its container id in the process
   * @param owned the tasks it owns now (its claim)
   * @param generation the generation of its claim; the newest wins a disputed task
   */
  record Member(String memberId, String processId, int containerId, Set<Integer> owned,
      int generation) {}

  /** The cost of a task in a process: the changelog records it would restore there. */
  interface RestoreCost {
    long of(int task, String processId);
  }

  private TaskPlacement() {}

  /**
   * Places {@code tasks} tasks on the members.
   *
   * @return each member's tasks for this round (every member present, possibly empty)
   */
  static Map<String, Set<Integer>> place(int tasks, List<Member> members, RestoreCost cost) {
    Map<String, Set<Integer>> result = new LinkedHashMap<>();
    if (members.isEmpty()) {
      return result;
    }
    List<Member> sorted = new ArrayList<>(members);
    sorted.sort(Comparator.comparing(Member::processId).thenComparingInt(Member::containerId)
        .thenComparing(Member::memberId));
    Map<Integer, Member> owner = owners(tasks, sorted);
    Map<String, Integer> ownedCount = new HashMap<>();
    owner.values().forEach(m -> ownedCount.merge(m.memberId(), 1, Integer::sum));

    Map<String, Integer> capacity = capacities(tasks, sorted, ownedCount);
    Map<String, Set<Integer>> target = new LinkedHashMap<>();
    for (Member m : sorted) {
      target.put(m.memberId(), new TreeSet<>());
    }
    // Sticky: a member keeps what it owns, up to its share (its lowest-numbered tasks).
    List<Integer> unplaced = new ArrayList<>();
    for (int t = 0; t < tasks; t++) {
      Member m = owner.get(t);
      if (m != null && target.get(m.memberId()).size() < capacity.get(m.memberId())) {
        target.get(m.memberId()).add(t);
      } else {
        unplaced.add(t);
      }
    }
    // State-aware: the tasks whose state is cheapest somewhere choose first.
    Map<Integer, Long> cheapest = new HashMap<>();
    for (int t : unplaced) {
      long min = Long.MAX_VALUE;
      for (Member m : sorted) {
        min = Math.min(min, cost.of(t, m.processId()));
      }
      cheapest.put(t, min);
    }
    unplaced.sort(Comparator.comparingLong((Integer t) -> cheapest.get(t))
        .thenComparingInt(t -> t));
    for (int t : unplaced) {
      Member best = null;
      long bestCost = Long.MAX_VALUE;
      for (Member m : sorted) {
        Set<Integer> mine = target.get(m.memberId());
        if (mine.size() >= capacity.get(m.memberId())) {
          continue;
        }
        long c = cost.of(t, m.processId());
        if (best == null || c < bestCost
            || (c == bestCost && mine.size() < target.get(best.memberId()).size())) {
          best = m;
          bestCost = c;
        }
      }
      target.get(best.memberId()).add(t);
    }
    // Cooperative: a task whose owner changes waits one round, until its owner has revoked it.
    for (Member m : sorted) {
      Set<Integer> now = new TreeSet<>();
      for (int t : target.get(m.memberId())) {
        Member current = owner.get(t);
        if (current == null || current.memberId().equals(m.memberId())) {
          now.add(t);
        }
      }
      result.put(m.memberId(), now);
    }
    return result;
  }

  /** Who owns each task: a claim of a task that exists; the newest generation wins a dispute. */
  private static Map<Integer, Member> owners(int tasks, List<Member> members) {
    Map<Integer, Member> owner = new TreeMap<>();
    for (Member m : members) {
      for (int t : m.owned()) {
        if (t < 0 || t >= tasks) {
          continue;
        }
        Member other = owner.get(t);
        if (other == null || m.generation() > other.generation()) {
          owner.put(t, m);
        }
      }
    }
    return owner;
  }

  /**
   * Each member's share: processes in proportion to their containers (the remainder one each to
   * the processes owning most now), then each process's share over its containers (the remainder
   * to the containers owning most now).
   */
  private static Map<String, Integer> capacities(int tasks, List<Member> members,
      Map<String, Integer> ownedCount) {
    Map<String, List<Member>> byProcess = new TreeMap<>();
    for (Member m : members) {
      byProcess.computeIfAbsent(m.processId(), p -> new ArrayList<>()).add(m);
    }
    int n = members.size();
    Map<String, Integer> processShare = new HashMap<>();
    int given = 0;
    for (Map.Entry<String, List<Member>> p : byProcess.entrySet()) {
      int share = (int) ((long) tasks * p.getValue().size() / n);
      processShare.put(p.getKey(), share);
      given += share;
    }
    List<String> processes = new ArrayList<>(byProcess.keySet());
    processes.sort(Comparator.comparingInt((String p) -> -owned(byProcess.get(p), ownedCount))
        .thenComparing(p -> p));
    for (int i = 0; given < tasks; i = (i + 1) % processes.size()) {
      processShare.merge(processes.get(i), 1, Integer::sum);
      given++;
    }
    Map<String, Integer> capacity = new HashMap<>();
    for (Map.Entry<String, List<Member>> p : byProcess.entrySet()) {
      List<Member> inProcess = new ArrayList<>(p.getValue());
      int share = processShare.get(p.getKey());
      int base = share / inProcess.size();
      int extra = share % inProcess.size();
      inProcess.sort(Comparator.comparingInt((Member m) ->
          -ownedCount.getOrDefault(m.memberId(), 0)).thenComparingInt(Member::containerId));
      for (int i = 0; i < inProcess.size(); i++) {
        capacity.put(inProcess.get(i).memberId(), base + (i < extra ? 1 : 0));
      }
    }
    return capacity;
  }

  private static int owned(List<Member> members, Map<String, Integer> ownedCount) {
    int sum = 0;
    for (Member m : members) {
      sum += ownedCount.getOrDefault(m.memberId(), 0);
    }
    return sum;
  }
}
