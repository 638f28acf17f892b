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
}
