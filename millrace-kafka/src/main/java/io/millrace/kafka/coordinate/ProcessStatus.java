package io.millrace.kafka.coordinate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one process of a job under {@code job.coordinator=kafka} says about itself in the job's
 * status topic: where it runs, its containers' tasks, and each container's last rebalance, with
 * how long each phase took. {@code bin/millrace status} reads it next to the group's own
 * description.
 *
 * <p>Layout (UTF-8 text, fields separated by tabs):
 *
 * <pre>
 * millrace-status 1
 * process &lt;label&gt; &lt;host&gt; &lt;pid&gt; &lt;started ms&gt; &lt;updated ms&gt;
 * container &lt;id&gt; &lt;tasks&gt; &lt;rebalance start ms or -1&gt; &lt;join ms&gt; &lt;revoke ms&gt;
 *     &lt;assign ms&gt; &lt;tasks added&gt; &lt;tasks revoked&gt; &lt;tasks lost&gt;
 *     &lt;standby copies&gt;   (one line each)
 * </pre>
 *
 * Task lists are comma-separated, "-" when empty; standby copies are {@code task:lag} pairs
 * (lag in changelog records, -1 not known yet), comma-separated, "-" when none, and absent in the
 * records of processes older than them. Public so that tools (the scale-out benchmark)
 * read the same record {@code bin/millrace status} prints.
 *
 * @param label the process (instance id, or host-pid)
 * @param host its host
 * @param pid its pid
 * @param startedMs when it started
 * @param updatedMs when it wrote this
 * @param containers its containers, by id
 */
public record ProcessStatus(String label, String host, long pid, long startedMs, long updatedMs,
    Map<Integer, Container> containers) {
  private static final String MAGIC = "millrace-status 1";

  /**
   * One container.
   *
   * @param tasks its tasks now
   * @param rebalanceStartMs when its last rebalance began (it sent its JoinGroup), or -1
   * @param joinMs waiting for the group in that rebalance (the other members, the leader's
   *     assignment)
   * @param revokeMs committing and closing what it gave up
   * @param assignMs reading checkpoints, restoring stores and starting what it took
   * @param added tasks it took
   * @param revoked tasks it gave up
   * @param lost tasks it lost without committing
   * @param standbys the standby copies it keeps: task -> changelog records behind (-1 unknown)
   */
  public record Container(Set<Integer> tasks, long rebalanceStartMs, long joinMs, long revokeMs,
      long assignMs, Set<Integer> added, Set<Integer> revoked, Set<Integer> lost,
      Map<Integer, Long> standbys) {
    static Container idle() {
      return new Container(Set.of(), -1, 0, 0, 0, Set.of(), Set.of(), Set.of(), Map.of());
    }

    /** The same container with its assignment taking {@code ms}. */
    Container withAssignMs(long ms) {
      return new Container(tasks, rebalanceStartMs, joinMs, revokeMs, ms, added, revoked, lost,
          standbys);
    }

    /** The same container with these standby copies. */
    Container withStandbys(Map<Integer, Long> copies) {
      return new Container(tasks, rebalanceStartMs, joinMs, revokeMs, assignMs, added, revoked,
          lost, copies);
    }
  }

  byte[] encode() {
    StringBuilder b = new StringBuilder(MAGIC).append('\n');
    b.append("process\t").append(label).append('\t').append(host).append('\t').append(pid)
        .append('\t').append(startedMs).append('\t').append(updatedMs).append('\n');
    containers.forEach((id, c) -> b.append("container\t").append(id).append('\t')
        .append(list(c.tasks())).append('\t').append(c.rebalanceStartMs()).append('\t')
        .append(c.joinMs()).append('\t').append(c.revokeMs()).append('\t').append(c.assignMs())
        .append('\t').append(list(c.added())).append('\t').append(list(c.revoked()))
        .append('\t').append(list(c.lost())).append('\t').append(copies(c.standbys()))
        .append('\n'));
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The status topic of the job whose group is {@code groupId}. */
  public static String topicOf(String groupId) {
    return "__millrace-status-" + groupId;
  }

  /** Reads a record; throws {@link IllegalArgumentException} saying what is wrong. */
  public static ProcessStatus decode(byte[] bytes) {
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
    if (lines.length < 2 || !lines[0].equals(MAGIC)) {
      throw new IllegalArgumentException("not a Millrace status record");
    }
    try {
      String[] p = lines[1].split("\t");
      Map<Integer, Container> containers = new TreeMap<>();
      for (int i = 2; i < lines.length; i++) {
        String[] f = lines[i].split("\t");
        containers.put(Integer.parseInt(f[1]), new Container(set(f[2]), Long.parseLong(f[3]),
            Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), set(f[7]),
            set(f[8]), set(f[9]), f.length > 10 ? copies(f[10]) : Map.of()));
      }
      return new ProcessStatus(p[1], p[2], Long.parseLong(p[3]), Long.parseLong(p[4]),
          Long.parseLong(p[5]), containers);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("a damaged status record: " + e, e);
    }
  }

  static String list(Set<Integer> tasks) {
    if (tasks.isEmpty()) {
      return "-";
    }
    List<String> parts = new ArrayList<>();
    for (int t : new TreeSet<>(tasks)) {
      parts.add(Integer.toString(t));
    }
    return String.join(",", parts);
  }

  private static String copies(Map<Integer, Long> standbys) {
    if (standbys.isEmpty()) {
      return "-";
    }
    List<String> parts = new ArrayList<>();
    new TreeMap<>(standbys).forEach((t, lag) -> parts.add(t + ":" + lag));
    return String.join(",", parts);
  }

  private static Map<Integer, Long> copies(String list) {
    Map<Integer, Long> standbys = new TreeMap<>();
    if (!list.equals("-")) {
      for (String pair : list.split(",")) {
        int colon = pair.indexOf(':');
        standbys.put(Integer.parseInt(pair.substring(0, colon)),
            Long.parseLong(pair.substring(colon + 1)));
      }
    }
    return standbys;
  }

  private static Set<Integer> set(String list) {
    Set<Integer> tasks = new TreeSet<>();
    if (!list.equals("-")) {
      for (String t : list.split(",")) {
        tasks.add(Integer.parseInt(t));
      }
    }
    return tasks;
  }
}
