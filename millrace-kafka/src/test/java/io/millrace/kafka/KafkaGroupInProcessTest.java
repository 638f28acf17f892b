package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.PartitionState;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two runners of one job in this JVM, under {@code job.coordinator=kafka}, share its tasks over
 * the group, and take them back from each other: the group's mechanics, fast. The tests with real
 * processes (child JVMs killed for real) are in {@link KafkaScaleOutTest}.
 */
class KafkaGroupInProcessTest {
  @TempDir Path tmp;

  private static Set<Integer> tasksOf(LocalRunner runner) {
    Set<Integer> tasks = new HashSet<>();
    runner.containers().forEach(c -> {
      for (PartitionState p : c.loop().partitions()) {
        tasks.add(p.id().partition());
      }
    });
    return tasks;
  }

  @Test
  void twoRunnersShareTheTasksAndOneTakesThemAllBackWhenTheOtherStops() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("group-in");
    String out = topic("group-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, 4);
    Map<String, String> config = job(broker.bootstrapServers(), "group-" + in,
        UpperCaseTask.class, in, out, tmp.resolve("a").toString());
    config.put("job.coordinator", "kafka");
    config.put("task.checkpoint.system", "kafka");
    config.put("task.commit.ms", "200");
    LocalRunner a = start(config);
    await(Duration.ofSeconds(60), "runner a holds every task", () -> tasksOf(a).size() == 4);

    Map<String, String> configB = new java.util.HashMap<>(config);
    configB.put("job.state.dir", tmp.resolve("b").toString());
    LocalRunner b = start(configB);
    await(Duration.ofSeconds(60), "two tasks each", () -> tasksOf(a).size() == 2
        && tasksOf(b).size() == 2);
    Set<Integer> all = new HashSet<>(tasksOf(a));
    all.addAll(tasksOf(b));
    assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3);

    // bin/millrace status shows both members, their tasks, and each task's lag.
    Path properties = tmp.resolve("job.properties");
    StringBuilder text = new StringBuilder();
    config.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    java.nio.file.Files.writeString(properties, text);
    KafkaTestSupport.await(Duration.ofSeconds(30), "both statuses written", () -> {
      String status = status(properties);
      return status.contains("2 member(s) in 1 process(es)") && !status.contains("no status");
    });
    String status = status(properties);
    assertThat(status).contains("group group-" + in).contains("container 0: tasks")
        .contains("last rebalance").contains("input lag");
    for (int t = 0; t < 4; t++) {
      assertThat(status).containsPattern("(?m)^ +" + t + " +\\S+/c0 +in/" + t + " \\d+");
    }

    List<String[]> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      records.add(new String[] {"k" + i, "v" + i});
    }
    for (int p = 0; p < 4; p++) {
      TestBroker.write(broker.bootstrapServers(), in, p, records);
    }
    await(Duration.ofSeconds(60), "every record out",
        () -> readAll(broker.bootstrapServers(), out).size() >= 400);

    stop(b);
    await(Duration.ofSeconds(60), "runner a holds every task again",
        () -> tasksOf(a).size() == 4);
    for (int p = 0; p < 4; p++) {
      TestBroker.write(broker.bootstrapServers(), in, p, records);
    }
    await(Duration.ofSeconds(60), "the second round out",
        () -> readAll(broker.bootstrapServers(), out).size() >= 800);
    stop(a);
    assertThat(readAll(broker.bootstrapServers(), out)).hasSize(800);
  }

  private static String status(Path properties) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int code = io.millrace.core.cli.Main.run(new String[] {"status", properties.toString()},
        new java.io.PrintStream(out, true), new java.io.PrintStream(err, true));
    assertThat(code).as("status exit code; stderr: %s", err).isZero();
    return out.toString();
  }
}
