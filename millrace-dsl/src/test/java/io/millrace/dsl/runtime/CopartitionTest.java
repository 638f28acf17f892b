package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.store.KeyValue;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.dsl.Joined;
import io.millrace.dsl.MessageStream;
import io.millrace.dsl.Source;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.Table;
import io.millrace.dsl.serde.Serdes;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a stateful operator reads by key must be co-partitioned, checked when the job is planned
 * (the real planner, memory streams of known partition counts): a join's two inputs, the streams
 * an aggregate merges; a repartition before a join is made with the other side's partitions.
 */
class CopartitionTest {
  private static final AtomicInteger UNIQUE = new AtomicInteger();

  @TempDir Path tmp;

  /** Clicks joined with the users table. */
  public static final class Enrich implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> users = graph.table(Source.<String, String>of("users"),
          Stored.<String, String>as("users").withValueSerde(Serdes.string()));
      graph.<String, String>stream("clicks")
          .join(users, (c, u) -> c + "/" + u, Joined.as("enrich")).to("out");
    }
  }

  /** Clicks re-keyed by their value, then joined with the users table. */
  public static final class RekeyedEnrich implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> users = graph.table(Source.<String, String>of("users"),
          Stored.<String, String>as("users").withValueSerde(Serdes.string()));
      graph.<String, String>stream("clicks").map((k, v) -> new KeyValue<>(v, k))
          .join(users, (c, u) -> c + "/" + u, Joined.as("enrich")).to("out");
    }
  }

  /** Two streams merged, then counted by their own keys: no repartition. */
  public static final class MergedCount implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> views = graph.stream("users");
      views.merge(graph.stream("clicks")).groupByKey().count(Stored.as("both")).to("out");
    }
  }

  private Map<String, String> job(Class<? extends StreamApplication> app, int users,
      int clicks) {
    String name = "copartition-" + UNIQUE.incrementAndGet();
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", name);
    config.put("app.class", app.getName());
    config.put("job.state.dir", tmp.resolve(name).toString());
    for (String stream : new String[] {"users", "clicks", "out"}) {
      config.put("streams." + stream + ".system", "memory");
      config.put("streams." + stream + ".physical.name", name + "-" + stream);
    }
    MemoryStreams.create(name + "-users", users);
    MemoryStreams.create(name + "-clicks", clicks);
    return config;
  }

  @Test
  void aJoinOfStreamsWithDifferentPartitionCountsIsRefusedNamingBoth() {
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(job(Enrich.class, 2, 4))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("streams clicks (4 partitions) and users (2 partitions)")
        .hasMessageContaining("by enrich")
        .hasMessageContaining("co-partitioned");
    JobPlan plan = JobPlanner.plan(JobConfig.of(job(Enrich.class, 3, 3)));
    plan.close();
  }

  @Test
  void mergedStreamsCountedByKeyMustBeCoPartitioned() {
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(job(MergedCount.class, 3, 2))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("streams users (3 partitions) and clicks (2 partitions)")
        .hasMessageContaining("by both");
  }

  @Test
  void aRepartitionBeforeAJoinIsMadeWithTheTablesPartitions() {
    JobPlan plan = JobPlanner.plan(JobConfig.of(job(RekeyedEnrich.class, 2, 5)));
    try {
      assertThat(plan.taskCount()).isEqualTo(5);
      assertThat(plan.partitionCounts()).containsEntry("enrich-repartition", 2);
    } finally {
      plan.close();
    }
  }

  @Test
  void aRepartitionBeforeAJoinKeepsTheTablesPartitionsWhateverTheDefaultForRepartitions() {
    Map<String, String> config = job(RekeyedEnrich.class, 2, 5);
    config.put("dsl.repartition.partitions", "4"); // for the repartitions that join nothing
    JobPlan plan = JobPlanner.plan(JobConfig.of(config));
    try {
      assertThat(plan.partitionCounts()).containsEntry("enrich-repartition", 2);
    } finally {
      plan.close();
    }
  }
}
