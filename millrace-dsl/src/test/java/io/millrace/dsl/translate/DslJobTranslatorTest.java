package io.millrace.dsl.translate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.DslDrivers;
import io.millrace.dsl.MessageStream;
import io.millrace.dsl.Source;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.window.Windows;
import io.millrace.spi.job.JobTranslator;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a DSL application becomes in Millrace's keys. */
class DslJobTranslatorTest {
  private final ClassLoader loader = getClass().getClassLoader();
  private final DslJobTranslator translator = new DslJobTranslator();

  /** A re-keyed count (a repartition) and a windowed count beside a plain sink. */
  public static final class PageViews implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> views = graph.stream(Source.<String, String>of("views")
          .withSerdes(Serdes.string(), Serdes.string()));
      views.filter((k, v) -> !v.isEmpty()).to("pages", Serdes.string(), Serdes.string());
      views.map((k, v) -> new KeyValue<>(v, k)).groupByKey().count(Stored.as("by-page"))
          .to("page-counts");
      views.groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ZERO))
          .lateRecordsTo("late").count(Stored.as("per-minute")).to("minute-counts");
    }
  }

  /** A source serde the runtime cannot make by its class name. */
  public static final class AnonymousSerde implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Serde<String> serde = new Serde<>() {
        @Override
        public byte[] toBytes(String object) {
          return null;
        }

        @Override
        public String fromBytes(byte[] bytes) {
          return null;
        }
      };
      graph.stream(Source.<String, String>of("views").withSerdes(serde, serde)).to("out");
    }
  }

  /** Late records of a windowed count over longs, to a stream of their own. */
  public static final class LateLongs implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.stream(Source.<String, Long>of("views").withSerdes(Serdes.string(), Serdes.longs()))
          .filter((k, v) -> v > 0)
          .groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ZERO))
          .lateRecordsTo("late").count(Stored.as("per-minute")).to("minute-counts");
      graph.stream(Source.<String, Long>of("pages").withSerdes(Serdes.string(), Serdes.longs()))
          .mapValues(v -> v.toString())
          .groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ZERO))
          .lateRecordsTo("out", Serdes.string(), Serdes.string())
          .count(Stored.as("pages-per-minute")).to("page-counts");
    }
  }

  private JobConfig job(Class<? extends StreamApplication> app, String... more) {
    Map<String, String> config = DslDrivers.job("views-job", app, "views", "pages",
        "page-counts", "minute-counts", "late", "out");
    for (int i = 0; i < more.length; i += 2) {
      config.put(more[i], more[i + 1]);
    }
    return JobConfig.of(config);
  }

  @Test
  void aPipelineBecomesTheDslTaskWithItsStreamsStoresAndRepartitionNamedFromItsNames() {
    JobConfig config = job(PageViews.class);
    assertThat(translator.accepts(config, loader)).isTrue();
    Map<String, String> out = translator.translate(config, loader).config();
    assertThat(out).containsEntry("task.class", "io.millrace.dsl.runtime.DslTask")
        .containsEntry("task.inputs", "views,by-page-repartition")
        .containsEntry("task.outputs",
            "pages,by-page-repartition,page-counts,late,minute-counts")
        .containsEntry("dsl.app.class", PageViews.class.getName())
        .doesNotContainKey("app.class")
        .containsEntry("streams.views.key.serde", "io.millrace.dsl.serde.StringSerde")
        .containsEntry("streams.pages.value.serde", "io.millrace.dsl.serde.StringSerde")
        .containsEntry("streams.by-page-repartition.system", "memory")
        .containsEntry("streams.by-page-repartition.physical.name",
            "views-job-by-page-repartition")
        .containsEntry("streams.by-page-repartition.intermediate", "true")
        .containsEntry("stores.by-page.factory", "rocksdb")
        .containsEntry("stores.by-page.value.serde", "io.millrace.dsl.serde.LongSerde")
        .containsEntry("stores.per-minute.key.serde", "bytes")
        .doesNotContainKey("stores.by-page.changelog");
    assertThat(translator.translate(config, loader).config()).as("deterministic").isEqualTo(out);
  }

  @Test
  void theLateStreamGetsTheSerdesItsRecordsCameWithOrThoseGiven() {
    Map<String, String> out = translator.translate(job(LateLongs.class), loader).config();
    assertThat(out)
        .containsEntry("streams.late.key.serde", "io.millrace.dsl.serde.StringSerde")
        .containsEntry("streams.late.value.serde", "io.millrace.dsl.serde.LongSerde")
        .containsEntry("streams.out.key.serde", "io.millrace.dsl.serde.StringSerde")
        .containsEntry("streams.out.value.serde", "io.millrace.dsl.serde.StringSerde");
    assertThat(translator.translate(job(LateLongs.class, "streams.late.value.serde", "long"),
        loader).config()).as("found, not stated: the job's own key wins")
        .containsEntry("streams.late.value.serde", "long");
    assertThatThrownBy(() -> translator.translate(job(LateLongs.class,
        "streams.out.value.serde", "long"), loader)).as("stated: a contradiction is refused")
        .isInstanceOf(ConfigException.class).hasMessageContaining("streams.out.value.serde=long");
  }

  @Test
  void onKafkaChangelogsAndRepartitionsGoToTheInputsKafkaSystem() {
    Map<String, String> out = translator.translate(job(PageViews.class,
        "streams.views.system", "events", "systems.events.factory", "kafka"), loader).config();
    assertThat(out)
        .containsEntry("stores.by-page.changelog", "events.views-job-by-page-changelog")
        .containsEntry("stores.per-minute.changelog", "events.views-job-per-minute-changelog")
        .containsEntry("streams.by-page-repartition.system", "events");
  }

  @Test
  void theJobsOwnStoreKeysWinButAStatedSerdeItContradictsIsRefused() {
    assertThat(translator.translate(job(PageViews.class, "stores.by-page.factory", "memory"),
        loader).config()).containsEntry("stores.by-page.factory", "memory");
    assertThatThrownBy(() -> translator.translate(job(PageViews.class,
        "streams.views.key.serde", "long"), loader))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("streams.views.key.serde=long")
        .hasMessageContaining("source at views");
  }

  @Test
  void keysTheDslOwnsOrDoesNotKnowAreRefusedNamingThem() {
    assertThatThrownBy(() -> translator.translate(job(PageViews.class, "task.class", "x.Y"),
        loader)).isInstanceOf(ConfigException.class).hasMessageContaining("task.class=x.Y");
    assertThatThrownBy(() -> translator.translate(job(PageViews.class,
        "dsl.watermark.idle.msec", "5"), loader)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown key dsl.watermark.idle.msec")
        .hasMessageContaining("did you mean dsl.watermark.idle.ms");
  }

  @Test
  void severalRecordsOfATaskAtOnceOnTheWorkerPoolAreRefusedNamingTheKeys() {
    assertThatThrownBy(() -> translator.translate(job(PageViews.class,
        "job.container.thread.pool.size", "4", "task.max.concurrency", "8"), loader))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("task.max.concurrency=8")
        .hasMessageContaining("job.container.thread.pool.size=4");
    assertThat(translator.translate(job(PageViews.class,
        "job.container.thread.pool.size", "4", "task.max.concurrency", "1"), loader).config())
        .as("one record at a time on a worker").containsEntry("job.container.thread.pool.size",
            "4");
  }

  @Test
  void aSerdeTheRuntimeCannotMakeByNameIsRefusedNamingTheOperator() {
    assertThatThrownBy(() -> translator.translate(job(AnonymousSerde.class), loader))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the key serde of source at views")
        .hasMessageContaining("public no-argument constructor");
  }

  @Test
  void aJobOfAnotherKindIsNotAccepted() {
    assertThat(translator.accepts(JobConfig.of(Map.of("task.class", "x.Y")), loader)).isFalse();
    assertThat(translator.accepts(JobConfig.of(Map.of("app.class", "org.apache.samza.App")),
        loader)).as("an app.class of another kind (Samza's)").isFalse();
    assertThat(translator.accepts(JobConfig.of(Map.of("app.class", String.class.getName())),
        loader)).isFalse();
    assertThat(java.util.ServiceLoader.load(JobTranslator.class, loader).stream()
        .map(p -> p.type().getName())).contains(DslJobTranslator.class.getName());
  }
}
