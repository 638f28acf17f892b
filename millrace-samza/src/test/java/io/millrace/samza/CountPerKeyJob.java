package io.millrace.samza;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The keys of the Kafka tests' stateful Samza job ({@code jobs/count-per-key.properties}: {@link
 * CountPerKeyTask}, a count per key in a RocksDB store with a changelog, Samza's Kafka
 * checkpoints), as a user keeps them: the same file runs on Samza 1.8 and on Millrace. The tests
 * add only what a deployment would: the broker's address, the state folders, and the names a
 * test's job, input and changelog are told apart by.
 */
final class CountPerKeyJob {
  private CountPerKeyJob() {}

  /** The job as the file names it, on {@code kafka}, both runtimes' state under {@code dir}. */
  static Map<String, String> on(TestKafka kafka, Path dir) throws IOException {
    Map<String, String> config = SamzaTestJobs.jobFile("/jobs/count-per-key.properties");
    config.put("systems.kafka.consumer.bootstrap.servers", kafka.servers());
    config.put("systems.kafka.producer.bootstrap.servers", kafka.servers());
    config.put("job.logged.store.base.dir", dir.resolve("samza-logged").toString());
    config.put("job.non-logged.store.base.dir", dir.resolve("samza-stores").toString());
    config.put("job.state.dir", dir.resolve("millrace").toString());
    return config;
  }

  /**
   * As {@link #on}, named {@code job}, reading {@code kafka.<input>}, its store's changelog
   * {@code kafka.<changelog>}.
   */
  static Map<String, String> named(TestKafka kafka, Path dir, String job, String input,
      String changelog) throws IOException {
    Map<String, String> config = on(kafka, dir);
    config.put("job.name", job);
    config.put("task.inputs", "kafka." + input);
    config.put("stores.counts.changelog", "kafka." + changelog);
    return config;
  }

  /**
   * Makes {@code config} run on Millrace under {@code job.coordinator=kafka} (a consumer group
   * shares its tasks); the file's Samza standalone coordinator goes, which Millrace would read as
   * its local one. Returns {@code config}.
   */
  static Map<String, String> inAGroup(Map<String, String> config) {
    config.remove("job.coordinator.factory");
    config.put("job.coordinator", "kafka");
    return config;
  }
}
