package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.samza.translate.SamzaJobTranslator;
import io.millrace.samza.task.SamzaAsyncTaskAdapter;
import io.millrace.samza.task.SamzaStreamTaskAdapter;
import io.millrace.spi.job.JobTranslator.Translation;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** A Samza job's properties in Millrace's keys; and the errors a wrong one gets. */
class SamzaJobTranslatorTest {
  private final ClassLoader loader = getClass().getClassLoader();
  private final SamzaJobTranslator translator = new SamzaJobTranslator();

  static Map<String, String> typicalJob() throws Exception {
    Path file = Path.of(SamzaJobTranslatorTest.class.getResource("/jobs/wikipedia-stats.properties")
        .toURI());
    return new HashMap<>(JobConfig.load(file, List.of()).asMap());
  }

  @Test
  void aTypicalSamzaJobsPropertiesBecomeMillracesKeys() throws Exception {
    JobConfig config = JobConfig.of(typicalJob());
    assertThat(translator.accepts(config, loader)).isTrue();
    Map<String, String> job = translator.translate(config, loader).config();

    assertThat(job).containsEntry("job.name", "wikipedia-stats")
        .containsEntry("task.class", SamzaStreamTaskAdapter.class.getName())
        .containsEntry("task.inputs", "wikipedia-edits")
        .containsEntry("task.outputs", "wikipedia-stats")
        .containsEntry("task.window.ms", "10000")
        .containsEntry("task.commit.ms", "1000")
        .containsEntry("streams.wikipedia-edits.system", "kafka")
        .containsEntry("streams.wikipedia-edits.physical.name", "wikipedia-edits")
        .containsEntry("streams.wikipedia-edits.offset.default", "oldest")
        .containsEntry("streams.wikipedia-edits.key.serde", "bytes")
        .containsEntry("streams.wikipedia-edits.value.serde", "bytes")
        .containsEntry("streams.wikipedia-stats.system", "kafka")
        .containsEntry("systems.kafka.factory", "kafka")
        .containsEntry("systems.kafka.bootstrap.servers", "localhost:9092")
        .containsEntry("systems.kafka.auto.create.replication.factor", "1")
        .containsEntry("systems.kafka.checkpoint.replication.factor", "1")
        .containsEntry("task.checkpoint.system", "kafka")
        .containsEntry("task.checkpoint.import",
            "io.millrace.samza.checkpoint.SamzaCheckpointImport")
        .containsEntry("stores.wikipedia-stats.factory", "rocksdb")
        .containsEntry("stores.wikipedia-stats.changelog", "kafka.wikipedia-stats-changelog")
        .containsEntry("stores.wikipedia-stats.cache.size", "1000")
        .containsEntry("stores.wikipedia-stats.key.serde", "string") // Samza's bytes either way
        .containsEntry("stores.wikipedia-stats.value.serde", "bytes") // integer: no twin
        .containsEntry("metrics.reporters", "jmx")
        .containsEntry("samza.task.class", WikipediaStatsTask.class.getName())
        .containsEntry("samza.yarn.package.path",
            "file://${basedir}/target/${project.artifactId}-${pom.version}-dist.tar.gz")
        .doesNotContainKeys("yarn.package.path", "job.factory.class", "job.coordinator.system",
            "systems.kafka.samza.factory", "systems.kafka.consumer.zookeeper.connect",
            "serializers.registry.json.class", "streams.wikipedia-edits.samza.system",
            "stores.wikipedia-stats.msg.serde", "task.opts");
  }

  @Test
  void theKeysThatHaveNoMeaningHereAreNotedOnceEachWithWhy() throws Exception {
    List<String> notes = translator.translate(JobConfig.of(typicalJob()), loader).notes();
    assertThat(String.join("\n", notes)).contains(
        "yarn.container.memory.mb, yarn.package.path", "job.factory.class", "task.opts",
        "job.coordinator.replication.factor, job.coordinator.system",
        "systems.kafka.consumer.zookeeper.connect: ZooKeeper is not used",
        "systems.kafka.consumer.auto.offset.reset",
        "metrics.reporter.snapshot.class, metrics.reporter.snapshot.stream",
        "serializers.registry.metrics.class: its factory is not on the job's class path",
        "stores.wikipedia-stats.rocksdb.block.size.bytes");
    assertThat(notes.get(0)).isEqualTo("runs " + WikipediaStatsTask.class.getName()
        + " with inputs kafka.wikipedia-edits and outputs kafka.wikipedia-stats");
  }

  @Test
  void anInputWithoutAnOffsetDefaultStartsWhereSamzaWouldAtUpcoming() throws Exception {
    Map<String, String> config = typicalJob();
    config.keySet().removeIf(key -> key.endsWith("samza.offset.default"));
    Map<String, String> job = translator.translate(JobConfig.of(config), loader).config();
    assertThat(job).containsEntry("streams.wikipedia-edits.offset.default", "upcoming");
  }

  @Test
  void streamPropertiesAreReadInSamzasOrderAndAChangelogWithoutSystemIsOnTheChangelogSystem()
      throws Exception {
    Map<String, String> config = typicalJob();
    config.put("task.inputs", "kafka.wikipedia-edits,kafka.wiki.talk,kafka.users");
    config.put("systems.kafka.samza.offset.default", "upcoming"); // the system's default
    config.put("systems.kafka.streams.wiki.talk.samza.reset.offset", "true"); // old form
    config.put("systems.kafka.streams.wiki.talk.samza.priority", "2");
    config.put("streams.people.samza.system", "kafka"); // new form, under another stream id
    config.put("streams.people.samza.physical.name", "users");
    config.put("streams.people.samza.bootstrap", "true");
    config.put("stores.wikipedia-stats.changelog", "stats-changelog");
    config.put("job.changelog.system", "kafka");
    Map<String, String> job = translator.translate(JobConfig.of(config), loader).config();
    assertThat(job).containsEntry("task.inputs", "wikipedia-edits,wiki_talk,users")
        .containsEntry("streams.wikipedia-edits.offset.default", "oldest")
        .containsEntry("streams.wiki_talk.offset.default", "upcoming")
        .containsEntry("streams.wiki_talk.offset.reset", "true")
        .containsEntry("streams.wiki_talk.priority", "2")
        .containsEntry("streams.wiki_talk.physical.name", "wiki.talk")
        .containsEntry("streams.users.bootstrap", "true")
        .containsEntry("stores.wikipedia-stats.changelog", "kafka.stats-changelog");
  }

  @Test
  void translationIsDeterministic() throws Exception {
    Translation first = translator.translate(JobConfig.of(typicalJob()), loader);
    Translation second = translator.translate(JobConfig.of(typicalJob()), loader);
    assertThat(second).isEqualTo(first);
  }

  @Test
  void theTypicalJobPassesMillracesValidationAsItIs() throws Exception {
    JobPlanner.check(JobConfig.of(typicalJob()));
  }

  @Test
  void anAsyncTaskRunsInTheAsyncAdapterAndAMillraceTaskIsNotTaken() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("task.class", SamzaAsyncTaskTest.BatchingTask.class.getName());
    assertThat(translator.translate(JobConfig.of(config), loader).config())
        .containsEntry("task.class", SamzaAsyncTaskAdapter.class.getName());
    config.put("task.class", SamzaStreamTaskAdapter.class.getName()); // a Millrace task
    assertThat(translator.accepts(JobConfig.of(config), loader)).isFalse();
  }

  @Test
  void streamsWhoseNamesWouldShareAnIdGetIdsOfTheirOwn() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("task.inputs", "kafka.page_views,kafka.page.views");
    Map<String, String> job = translator.translate(JobConfig.of(config), loader).config();
    assertThat(job).containsEntry("task.inputs", "page_views-2,page_views")
        .containsEntry("streams.page_views.physical.name", "page.views")
        .containsEntry("streams.page_views-2.physical.name", "page_views");
  }

  @Test
  void aKeyOutsideMillracesAndSamzasNamespacesIsTheJobsOwnForItsTask() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("wikipedia.feed.host", "irc.wikimedia.org");
    JobPlanner.check(JobConfig.of(config));
    Translation translation = translator.translate(JobConfig.of(config), loader);
    assertThat(translation.config()).containsEntry("samza.wikipedia.feed.host", "irc.wikimedia.org")
        .doesNotContainKey("wikipedia.feed.host");
    assertThat(translation.notes()).anySatisfy(note -> assertThat(note)
        .startsWith("ignored wikipedia.feed.host: the job's own keys"));
  }

  private static void refused(Map<String, String> config, String... named) {
    ThrowingCallable check = () -> JobPlanner.check(JobConfig.of(config));
    assertThatThrownBy(check).isInstanceOf(ConfigException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").contains(named));
  }

  @Test
  void aTaskClassThatIsNotASamzaTaskIsNamed() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("task.class", "java.lang.String");
    refused(config, "task.class", "java.lang.String", "expected a Samza task");
  }

  @Test
  void aMissingSerdeFactoryIsNamed() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("serializers.registry.json.class", "com.example.AvroSerdeFactory");
    refused(config, "serializers.registry.json.class", "com.example.AvroSerdeFactory");
  }

  @Test
  void aSerdeNoFactoryRegistersIsNamed() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("systems.kafka.samza.msg.serde", "avro");
    refused(config, "systems.kafka.samza.msg.serde", "avro", "serializers.registry.avro.class");
  }

  @Test
  void aStoreFactoryMillraceCannotMapIsNamed() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("stores.wikipedia-stats.factory", "com.example.CouchbaseStorageEngineFactory");
    refused(config, "stores.wikipedia-stats.factory", "com.example.CouchbaseStorageEngineFactory");
  }

  @Test
  void aSystemFactoryMillraceCannotMapIsNamed() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("systems.hdfs.samza.factory", "org.apache.samza.system.hdfs.HdfsSystemFactory");
    refused(config, "systems.hdfs.samza.factory", "org.apache.samza.system.hdfs.HdfsSystemFactory");
  }

  @Test
  void aMisspeltKeyGetsMillracesOwnErrorWithTheNearestKey() throws Exception {
    Map<String, String> config = typicalJob();
    config.put("task.windw.ms", "5000");
    refused(config, "unknown key task.windw.ms", "did you mean task.window.ms?");
  }
}
