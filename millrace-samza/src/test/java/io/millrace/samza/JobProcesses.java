package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.testing.Await;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * The child JVMs of a job run on Millrace under {@code job.coordinator=kafka} ({@code millrace
 * run}, one process a machine): started, killed and started again by name, and what the
 * consumer group says of them. Shared by the group crash tests.
 */
final class JobProcesses implements AutoCloseable {
  private final Map<String, Path> files = new HashMap<>();
  private final Map<String, Process> running = new TreeMap<>();
  private final Map<String, String> logs = new HashMap<>();
  private final String job;
  private int starts;

  /** Processes of {@code job}, whose logs are {@code target/<job>-<name>-<start>.log}. */
  JobProcesses(String job) {
    this.job = job;
  }

  void start(String name, Path file) throws Exception {
    files.put(name, file);
    start(name);
  }

  /** Starts {@code name} again, with the file it started with. */
  void start(String name) throws Exception {
    String log = job + "-" + name + "-" + starts++ + ".log";
    running.put(name, ChildJvms.millrace(files.get(name), log));
    logs.put(name, log);
  }

  /** SIGKILL: no final commit; a transaction it had open stays open. */
  void kill(String name) throws InterruptedException {
    ChildJvms.kill(running.remove(name));
  }

  /**
   * SIGSTOP ({@code stop}) or SIGCONT: a frozen process changes nothing (a check of what it
   * left open holds until it is killed or thawed).
   */
  void freeze(String name, boolean stop) throws Exception {
    Process signal = new ProcessBuilder("kill", stop ? "-STOP" : "-CONT",
        Long.toString(running.get(name).pid())).redirectErrorStream(true).start();
    assertThat(signal.waitFor(30, TimeUnit.SECONDS)).as("kill %s done", stop ? "-STOP" : "-CONT")
        .isTrue();
    assertThat(signal.exitValue()).as("kill %s %s", stop ? "-STOP" : "-CONT", name).isZero();
  }

  /** SIGTERM: each commits what it processed and leaves the group. */
  void stopAll() throws InterruptedException {
    for (Process p : running.values()) {
      p.destroy();
    }
    for (Map.Entry<String, Process> e : running.entrySet()) {
      assertThat(e.getValue().waitFor(60, TimeUnit.SECONDS))
          .as("%s stopped (target/%s)", e.getKey(), logs.get(e.getKey())).isTrue();
    }
    running.clear();
  }

  long pid(String name) {
    return running.get(name).pid();
  }

  /** Waits until {@code done} holds; fails naming the log of a process that died before. */
  void await(String what, Callable<Boolean> done) throws Exception {
    Await.until(Await.DEADLINE, ChildJvms.POLL, what + " (logs " + logs.values()
        + " in target/)", () -> {
      running.forEach((name, p) -> {
        if (!p.isAlive()) {
          throw ChildJvms.stopped(name, p, logs.get(name));
        }
      });
      return done.call();
    });
  }

  /** Kills what still runs (a test that failed midway). */
  @Override
  public void close() {
    for (Process p : running.values()) {
      p.destroyForcibly();
    }
  }

  /**
   * The group's committed offsets of {@code input}: each partition's last message processed
   * (the group keeps the next to read).
   */
  static Map<Integer, Long> committed(Admin admin, String group, String input) throws Exception {
    Map<Integer, Long> offsets = new TreeMap<>();
    Map<TopicPartition, OffsetAndMetadata> all = admin.listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
    all.forEach((tp, om) -> {
      if (tp.topic().equals(input) && om != null) {
        offsets.put(tp.partition(), om.offset() - 1);
      }
    });
    return offsets;
  }

  /** The tasks (input partitions) the group has given the process of {@code pid}. */
  static List<Integer> tasksOf(Admin admin, String group, long pid) throws Exception {
    return tasksOf(admin, group, Long.toString(pid));
  }

  /**
   * The tasks (input partitions) the group has given the process {@code label} names: its
   * {@code job.instance.id}, or, without one, its pid.
   */
  static List<Integer> tasksOf(Admin admin, String group, String label) throws Exception {
    List<Integer> tasks = new ArrayList<>();
    ConsumerGroupDescription description;
    try {
      description = admin.describeConsumerGroups(List.of(group)).all()
          .get(30, TimeUnit.SECONDS).get(group);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return tasks; // no member has joined yet
      }
      throw e;
    }
    for (MemberDescription m : description.members()) {
      // Members' client ids name their process: millrace-<job>-<instance id>-c<container>,
      // or, without one, millrace-<job>-<host>-<pid>-c<container>.
      if (m.clientId().endsWith("-" + label + "-c0")) {
        m.assignment().topicPartitions().forEach(tp -> tasks.add(tp.partition()));
      }
    }
    return tasks;
  }
}
