package io.millrace.bench.nexmark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bench nexmark's options are checked before a broker starts; its child classpaths. */
class NexmarkBenchTest {
  @Test
  void anUnknownQueryIsRefusedByNameBeforeAnyWork() {
    assertThatThrownBy(() -> NexmarkBench.main(new String[] {"--check", "--queries", "q0,q6"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'q6'")
        .hasMessageContaining("known: q0,q1,q2,q3,q4,q5,q7,q8,q11");
  }

  @Test
  void aMisspeltGuaranteeOrSystemIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> NexmarkBench.main(new String[] {"--guarantee", "exactly_once"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--guarantee")
        .hasMessageContaining("at-least-once,exactly-once");
    assertThatThrownBy(() -> NexmarkBench.main(new String[] {"--systems", "samza"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--systems")
        .hasMessageContaining("[samza]");
    assertThatThrownBy(() -> NexmarkBench.main(new String[] {"--event", "10"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--event");
  }

  @Test
  void eachPeerRunsWithItsOwnRocksDbAndKafkaClientsJars(@TempDir Path dir) throws Exception {
    Path peers = Files.createDirectory(dir.resolve("peers-lib"));
    Files.createFile(Files.createDirectory(dir.resolve("flink-lib"))
        .resolve("kafka-clients-4.2.0.jar"));
    for (String jar : List.of("frocksdbjni-8.10.0.jar", "flink-core-2.2.1.jar",
        "kafka-streams-4.3.1.jar", "kafka-clients-4.3.1.jar")) {
      Files.createFile(peers.resolve(jar));
    }
    NexmarkBench.Classpaths classpaths = new NexmarkBench.Classpaths(
        String.join(File.pathSeparator, "lib/millrace-core.jar", "lib/rocksdbjni-8.11.4.jar"),
        peers);
    List<String> flink = names(classpaths.peer("flink"));
    assertThat(flink).contains("frocksdbjni-8.10.0.jar", "flink-core-2.2.1.jar",
        "kafka-clients-4.2.0.jar", "millrace-core.jar")
        .doesNotContain("rocksdbjni-8.11.4.jar", "kafka-streams-4.3.1.jar",
            "kafka-clients-4.3.1.jar");
    List<String> streams = names(classpaths.peer("kafka_streams"));
    assertThat(streams).contains("rocksdbjni-8.11.4.jar", "kafka-streams-4.3.1.jar",
        "kafka-clients-4.3.1.jar")
        .doesNotContain("frocksdbjni-8.10.0.jar", "flink-core-2.2.1.jar",
            "kafka-clients-4.2.0.jar");
  }

  private static List<String> names(String classpath) {
    return Arrays.stream(classpath.split(File.pathSeparator)).map(e -> new File(e).getName())
        .toList();
  }

  @Test
  void theGeometricMeanLeavesOutQueriesAPeerDidNotRun() {
    assertThat(NexmarkBench.geomean(List.of(2.0, 8.0, Double.NaN))).isEqualTo(4.0);
    assertThat(NexmarkBench.geomean(List.of())).isNaN();
  }
}
