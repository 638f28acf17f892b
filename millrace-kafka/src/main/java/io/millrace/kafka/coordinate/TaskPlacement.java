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
 *   <li><b>Warm-ups.</b> A stateful task that balance would move from its running owner to a
 *       process with more than {@code job.acceptable.recovery.lag} changelog records to restore
 *       stays where it runs, and that process gets a warm-up copy of it instead (at most {@code
 *       job.max.warmup.replicas} in the group at once); its room there stays reserved. Once the
 *       copy has caught up, its member asks for a rebalance, and the task moves with its state
 *       already there. A task whose owner is gone is placed at once, warm or not.
 *   <li><b>Standby replicas</b> ({@code job.standby.replicas}), once the actives are placed: each
 *       task's copies go to as many other processes, never to the process of its active (nor,
 *       while it moves, of its current owner), where possible in another rack than its active's,
 *       each process taking about as many copies as the others, and of each process's actives
 *       about as many as the others (so when a process dies, the balanced placement of its tasks
 *       finds a copy of each where it puts it); among those, to the processes with the freshest
 *       local files (so copies stay where they are), then the fewest copies.
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
   * One round's placement.
   *
   * @param active each member's tasks for this round (every member present, possibly empty)
   * @param standby each member's standby copies (every member present, possibly empty)
   * @param warmup each member's warm-up copies: tasks it will take once they caught up (every
   *     member present, possibly empty)
   */
  record Placement(Map<String, Set<Integer>> active, Map<String, Set<Integer>> standby,
      Map<String, Set<Integer>> warmup) {}

  /**
   * When a move waits for a warm-up.
   *
   * @param acceptableLag the most changelog records a task may have to restore where it goes,
   *     and still move at once
   * @param max the most warm-up copies in the group at once (0: none; tasks move cold)
   */
  record Warmups(long acceptableLag, int max) {
    /** Every task moves at once, whatever it has to restore. */
    static final Warmups NONE = new Warmups(Long.MAX_VALUE, 0);
  }

  /**
   * Places {@code tasks} tasks on the members, without standby copies.
   *
   * @return each member's tasks for this round (every member present, possibly empty)
   */
  static Map<String, Set<Integer>> place(int tasks, List<Member> members, RestoreCost cost) {
    return place(tasks, members, cost, 0, Map.of(), Warmups.NONE).active();
  }

  /**
   * Places {@code tasks} tasks on the members, and {@code replicas} standby copies of each.
   *
   * @param rackOfProcess each process's rack ("" or absent: unknown)
   * @param warmups when a move waits for a warm-up copy
   */
  static Placement place(int tasks, List<Member> members, RestoreCost cost, int replicas,
      Map<String, String> rackOfProcess, Warmups warmups) {
    Map<String, Set<Integer>> result = new LinkedHashMap<>();
    Map<String, Set<Integer>> warmup = new LinkedHashMap<>();
    if (members.isEmpty()) {
      return new Placement(result, new LinkedHashMap<>(), warmup);
    }
    List<Member> sorted = new ArrayList<>(members);
    sorted.sort(Comparator.comparing(Member::processId).thenComparingInt(Member::containerId)
        .thenComparing(Member::memberId));
    Map<Integer, Member> owner = owners(tasks, sorted);
    Map<String, Integer> ownedCount = new HashMap<>();
    owner.values().forEach(m -> ownedCount.merge(m.memberId(), 1, Integer::sum));

    Map<String, Integer> capacity = capacities(tasks, sorted, ownedCount);
    Map<String, Set<Integer>> target = new LinkedHashMap<>();
    Map<String, Integer> reserved = new HashMap<>(); // room kept for a task warming up there
    for (Member m : sorted) {
      target.put(m.memberId(), new TreeSet<>());
      warmup.put(m.memberId(), new TreeSet<>());
    }
    int warming = 0;
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
        if (mine.size() + reserved.getOrDefault(m.memberId(), 0) >= capacity.get(m.memberId())) {
          continue;
        }
        long c = cost.of(t, m.processId());
        if (best == null || c < bestCost
            || (c == bestCost && mine.size() < target.get(best.memberId()).size())) {
          best = m;
          bestCost = c;
        }
      }
      Member current = owner.get(t);
      if (current != null && warmups.max() > 0 && bestCost > warmups.acceptableLag()) {
        // Moving it now would stop it for a long restore: it runs on where it is, over its
        // owner's share for a while, and its new place is kept for it while a copy warms up.
        target.get(current.memberId()).add(t);
        reserved.merge(best.memberId(), 1, Integer::sum);
        if (warming < warmups.max()) {
          warmup.get(best.memberId()).add(t);
          warming++;
        }
        continue;
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
    return new Placement(result,
        standbys(tasks, replicas, sorted, owner, target, warmup, cost, rackOfProcess), warmup);
  }

  /** Places the standby copies, given where the actives are now and where they are going. */
  private static Map<String, Set<Integer>> standbys(int tasks, int replicas, List<Member> sorted,
      Map<Integer, Member> owner, Map<String, Set<Integer>> target,
      Map<String, Set<Integer>> warmup, RestoreCost cost, Map<String, String> rackOfProcess) {
    Map<String, Set<Integer>> standby = new LinkedHashMap<>();
    Map<String, List<Member>> byProcess = new TreeMap<>();
    for (Member m : sorted) {
      standby.put(m.memberId(), new TreeSet<>());
      byProcess.computeIfAbsent(m.processId(), p -> new ArrayList<>()).add(m);
    }
    int copies = Math.min(replicas, byProcess.size() - 1);
    if (copies <= 0) {
      return standby;
    }
    Map<Integer, String> targetProcess = new HashMap<>();
    Map<Integer, String> warmingIn = new HashMap<>();
    for (Member m : sorted) {
      for (int t : target.get(m.memberId())) {
        targetProcess.put(t, m.processId());
      }
      for (int t : warmup.get(m.memberId())) {
        warmingIn.put(t, m.processId());
      }
    }
    // Each process's fair share of the copies, rounded up: balance first, freshness within it.
    int share = (tasks * copies + byProcess.size() - 1) / byProcess.size();
    Map<String, Integer> held = new HashMap<>();
    // And its fair share of each process's actives' copies: the others divide a process's tasks
    // when it dies, each taking those it holds copies of (a balanced takeover stays warm).
    Map<String, Integer> activesOf = new HashMap<>();
    targetProcess.values().forEach(p -> activesOf.merge(p, 1, Integer::sum));
    Map<String, Map<String, Integer>> heldOf = new HashMap<>(); // keeper -> active -> copies
    for (int t = 0; t < tasks; t++) {
      Set<String> excluded = new TreeSet<>();
      String active = targetProcess.get(t);
      if (active != null) {
        excluded.add(active);
      }
      Member current = owner.get(t);
      if (current != null) {
        excluded.add(current.processId()); // while it moves, its files are open there
      }
      if (warmingIn.containsKey(t)) {
        excluded.add(warmingIn.get(t)); // a warm-up copy is there already
      }
      String activeRack = active == null ? "" : rackOfProcess.getOrDefault(active, "");
      int othersShare = active == null ? Integer.MAX_VALUE
          : (activesOf.get(active) * copies + byProcess.size() - 2) / (byProcess.size() - 1);
      Map<String, Integer> ofActive = new HashMap<>();
      heldOf.forEach((keeper, byActive) -> ofActive.put(keeper,
          byActive.getOrDefault(active, 0)));
      for (int r = 0; r < copies; r++) {
        String best = null;
        for (String p : byProcess.keySet()) {
          if (!excluded.contains(p) && (best == null
              || better(t, p, best, share, held, othersShare, ofActive, activeRack,
                  rackOfProcess, cost))) {
            best = p;
          }
        }
        if (best == null) {
          break; // fewer processes than copies wanted
        }
        excluded.add(best);
        held.merge(best, 1, Integer::sum);
        if (active != null) {
          heldOf.computeIfAbsent(best, k -> new HashMap<>()).merge(active, 1, Integer::sum);
          ofActive.merge(best, 1, Integer::sum);
        }
        Member keeper = null; // the process's container with the fewest copies
        for (Member m : byProcess.get(best)) {
          if (keeper == null
              || standby.get(m.memberId()).size() < standby.get(keeper.memberId()).size()) {
            keeper = m;
          }
        }
        standby.get(keeper.memberId()).add(t);
      }
    }
    return standby;
  }

  /** Whether process {@code p} is a better keeper of a copy of task {@code t} than {@code q}. */
  private static boolean better(int t, String p, String q, int share, Map<String, Integer> held,
      int othersShare, Map<String, Integer> ofActive, String activeRack,
      Map<String, String> rackOfProcess, RestoreCost cost) {
    boolean pFull = held.getOrDefault(p, 0) >= share;
    boolean qFull = held.getOrDefault(q, 0) >= share;
    if (pFull != qFull) {
      return !pFull;
    }
    boolean pSameRack = sameRack(activeRack, rackOfProcess.getOrDefault(p, ""));
    boolean qSameRack = sameRack(activeRack, rackOfProcess.getOrDefault(q, ""));
    if (pSameRack != qSameRack) {
      return !pSameRack;
    }
    boolean pFullOfActive = ofActive.getOrDefault(p, 0) >= othersShare;
    boolean qFullOfActive = ofActive.getOrDefault(q, 0) >= othersShare;
    if (pFullOfActive != qFullOfActive) {
      return !pFullOfActive;
    }
    long pCost = cost.of(t, p);
    long qCost = cost.of(t, q);
    if (pCost != qCost) {
      return pCost < qCost;
    }
    return held.getOrDefault(p, 0) < held.getOrDefault(q, 0); // ties: the first in order
  }

  private static boolean sameRack(String a, String b) {
    return !a.isEmpty() && a.equals(b);
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
