package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.core.embed.RunningJob;
import io.millrace.core.testing.Await;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stateful job of 12 tasks moved to Millrace and back to Samza, for real: {@link
 * CountPerKeyTask} (a count per key in a RocksDB store with a changelog, Kafka checkpoints) runs
 * on Samza 1.8's own runtime in a child JVM, then on Millrace with the same properties, then,
 * after {@code millrace samza export-checkpoint}, on Samza again. Each task's keys are its own
 * and each partition holds a different number of messages, so a task that restored another's
 * state (Samza puts task {@code Partition 10}'s state in changelog partition 2, by the text order
 * of the task names) would count wrong. Checked against a plain model of the counts: each runtime
 * resumes each partition right after the last message the other processed, with each task's
 * count where the other left it, and the final store and outputs hold every message once.
 */
class SamzaRoundTripTest {
  private static final int PARTITIONS = 12;
  private static final String OUTPUT = "key-counts"; // CountPerKeyTask's
  private static final int OUTPUT_PARTITIONS = 4;
  private static final ObjectMapper JSON = new ObjectMapper();
  @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

  @BeforeAll
  static void createSharedTopics() throws Exception {
    kafka.createTopic(OUTPUT, OUTPUT_PARTITIONS); // shared by the tests, told apart by key
  }

  /** The model: each key's count after the rounds. */
  private static Map<String, Integer> counts(List<Object[]> messages) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Object[] m : messages) {
      counts.merge((String) m[1], 1, Integer::sum);
    }
    return counts;
  }

  /** Writes the job's file, as a user keeps it. */
  private static Path file(Map<String, String> config, Path dir) throws IOException {
    return ChildJvms.jobFile(config, dir, "round-trip.properties");
  }

  private static Path file(Map<String, String> config, Path dir, String name)
      throws IOException {
    return ChildJvms.jobFile(config, dir, name);
  }

  /** Each key's first and last count among {@code outputs}. */
  private static Map<String, int[]> firstAndLast(List<Counted> outputs) {
    Map<String, int[]> counts = new TreeMap<>();
    for (Counted c : outputs) {
      int[] fl = counts.computeIfAbsent(c.key(), k -> new int[] {c.count(), c.count()});
      fl[0] = Math.min(fl[0], c.count());
      fl[1] = Math.max(fl[1], c.count());
    }
    return counts;
  }

  /** Each input partition's first offset among {@code outputs}. */
  private static Map<Integer, Long> firstOffsets(List<Counted> outputs) {
    Map<Integer, Long> first = new TreeMap<>();
    outputs.forEach(c -> first.merge(c.partition(), c.offset(), Math::min));
    return first;
  }

  @Test
  void aStatefulJobOfTwelveTasksMovesToMillraceAndBackToSamzaWithItsOffsetsAndEachTasksState(
      @TempDir Path dir) throws Exception {
    roundTrip(new Trip("round_trip", "p", PARTITIONS, Map.of()), dir);
  }

  /**
   * The same trip with Millrace's leg under exactly-once and {@code job.coordinator=kafka} (12
   * tasks: the group keeps Samza's changelog order too), and the input written in transactions
   * as an upstream exactly-once job writes it: the changelog Samza restores from ends each of Millrace's commits in a
   * transaction marker, each round of input ends in one, and each resume point (Samza's
   * checkpoint to Millrace, the group's offsets back to Samza) sits right before or after a
   * marker. After Millrace's leg a failed commit's writes (each key's next count) are left in the
   * changelog, aborted: Samza, whose file says to read committed data only (the export asks for
   * it), must restore without them (read_uncommitted, its default, it counted one too many).
   * Every leg stops after its input is checkpointed, so no message is processed twice:
   * at-least-once allows duplicates only where Samza is killed between processing and
   * checkpointing, which this test never does.
   */
  @Test
  void aJobMovedBackFromExactlyOnceUnderAGroupRestoresFromChangelogsEndingInMarkers(
      @TempDir Path dir) throws Exception {
    roundTrip(new Trip("eos_group_trip", "x", PARTITIONS, Map.of("job.coordinator", "kafka",
        "task.processing.guarantee", "exactly-once")), dir);
  }

  /**
   * As above under the local coordinator, with 12 tasks: Millrace's checkpoints are records of
   * its checkpoint topic, written in the same transactions as the changelog and outputs.
   */
  @Test
  void aJobMovedBackFromExactlyOnceWithItsOwnCheckpointTopicRestoresFromChangelogsEndingInMarkers(
      @TempDir Path dir) throws Exception {
    roundTrip(new Trip("eos_local_trip", "l", PARTITIONS,
        Map.of("task.processing.guarantee", "exactly-once")), dir);
  }

  /**
   * One trip's names and Millrace's guarantee: its job, input, changelog and Samza checkpoint
   * topic are its own, its keys ({@code <prefix><task>-k<i>}) too, in the shared output.
   */
  private record Trip(String job, String keyPrefix, int partitions,
      Map<String, String> millraceOnly) {
    /** Whether Millrace's leg runs exactly-once (and the input is written in transactions). */
    boolean exactlyOnce() {
      return "exactly-once".equals(millraceOnly.get("task.processing.guarantee"));
    }

    String input() {
      return job.replace('_', '-') + "-input";
    }

    String changelog() {
      return job.replace('_', '-') + "-changelog";
    }

    String samzaCheckpoints() {
      return "__samza_checkpoint_ver_1_for_" + job.replace('_', '-') + "_1";
    }

    /** The job's file for both runtimes; Millrace's leg adds {@link #millraceKeys}. */
    Map<String, String> config(Path dir) throws IOException {
      Map<String, String> config = CountPerKeyJob.named(kafka, dir, job, input(), changelog());
      if (exactlyOnce()) {
        // What the export asks of a job that wrote its changelogs in transactions here: Samza
        // then restores them as a reader of committed data.
        config.put("systems.kafka.consumer.isolation.level", "read_committed");
      }
      return config;
    }

    /** The keys Millrace's leg runs with beyond the job's own. */
    Map<String, String> millraceKeys(Map<String, String> config) {
      Map<String, String> millrace = new HashMap<>(config);
      if (millraceOnly.containsKey("job.coordinator")) {
        CountPerKeyJob.inAGroup(millrace);
      }
      millrace.putAll(millraceOnly);
      return millrace;
    }

    /** One round of input: partition p gets {@code base + p} messages of this trip's keys. */
    List<Object[]> round(int base, String tag) {
      List<Object[]> messages = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        for (int i = 0; i < base + p; i++) {
          messages.add(new Object[] {p, keyPrefix + p + "-k" + (i % 3), tag + i});
        }
      }
      return messages;
    }

    /** Writes a round of input: each partition's offsets of it. */
    Map<Integer, List<Long>> write(List<Object[]> round) throws Exception {
      return kafka.write(input(), round, exactlyOnce());
    }

    /** The outputs of this trip's keys, in the output's order, as a reader of committed data. */
    List<Counted> outputs() throws Exception {
      List<Counted> all = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(OUTPUT, OUTPUT_PARTITIONS, true)) {
        Counted c = Counted.of(r);
        if (c.key().matches(keyPrefix + "\\d+-k\\d+")) {
          all.add(c);
        }
      }
      return all;
    }

    /** The newest version 1 checkpoint of each task in Samza's topic: its input offset. */
    Map<Integer, Long> samzaCheckpoints(String topic) throws Exception {
      return CheckpointTopics.samza(kafka, samzaCheckpoints(), topic);
    }

    /** Each task's checkpointed input offset is {@code last}'s (Samza's: the last processed). */
    boolean checkpointedThrough(Map<Integer, Long> last) throws Exception {
      Map<Integer, Long> checkpoints = samzaCheckpoints(input());
      return last.entrySet().stream()
          .allMatch(e -> checkpoints.getOrDefault(e.getKey(), -1L).equals(e.getValue()));
    }

    /** The store's counts by key, as its changelog holds them for a reader of committed data. */
    Map<String, Integer> changelogCounts() throws Exception {
      return CountModel.changelog(kafka, changelog(), partitions);
    }
  }

  /** Each partition's first offset of a round written. */
  private static Map<Integer, Long> firsts(Map<Integer, List<Long>> written) {
    Map<Integer, Long> firsts = new TreeMap<>();
    written.forEach((p, offsets) -> firsts.put(p, offsets.get(0)));
    return firsts;
  }

  /** Each partition's last offset of a round written. */
  private static Map<Integer, Long> lasts(Map<Integer, List<Long>> written) {
    Map<Integer, Long> lasts = new TreeMap<>();
    written.forEach((p, offsets) -> lasts.put(p, offsets.get(offsets.size() - 1)));
    return lasts;
  }

  /**
   * Samza 1.8 counts a first round, Millrace a second (resuming from Samza's checkpoint and
   * changelog), Samza a third (after the export, resuming from Millrace's), each checked against
   * the plain model.
   */
  private static void roundTrip(Trip trip, Path dir) throws Exception {
    kafka.createTopic(trip.input(), trip.partitions());
    Map<String, String> config = trip.config(dir);
    Path file = file(config, dir);
    List<Object[]> first = trip.round(8, "a");
    List<Object[]> second = trip.round(5, "b");
    List<Object[]> third = trip.round(3, "c");
    List<Object[]> firstTwo = new ArrayList<>(first);
    firstTwo.addAll(second);
    List<Object[]> all = new ArrayList<>(firstTwo);
    all.addAll(third);

    // 1. Samza 1.8 counts the first round, checkpoints all of it, and is killed.
    Map<Integer, List<Long>> firstAt = trip.write(first);
    ChildJvms.runSamzaUntil(file, trip.job() + "-samza-1.log",
        "Samza checkpointing the first round",
        () -> trip.checkpointedThrough(lasts(firstAt)));
    List<Counted> bySamza = trip.outputs();
    assertThat(bySamza).extracting(Counted::runtime).containsOnly("samza");
    assertThat(bySamza).hasSize(first.size());
    List<ConsumerRecord<byte[], byte[]>> samzasOwn = kafka.readAll(trip.samzaCheckpoints(), 1);

    // 2. Millrace takes over: it resumes after Samza's checkpoint with each task's counts.
    Map<Integer, List<Long>> secondAt = trip.write(second);
    try (RunningJob job = SamzaTestJobs.start(trip.millraceKeys(config))) {
      Await.until(Await.DEADLINE, "the second round counted on Millrace",
          () -> trip.outputs().size() >= firstTwo.size());
      job.stop(); // commits what it processed
    }
    List<Counted> byMillrace = new ArrayList<>(trip.outputs());
    byMillrace.removeIf(c -> !c.runtime().equals("millrace"));
    assertThat(byMillrace).hasSize(second.size());
    assertThat(firstOffsets(byMillrace)).isEqualTo(firsts(secondAt));
    Map<String, Integer> afterFirst = counts(first);
    firstAndLast(byMillrace).forEach((key, fl) -> assertThat(fl[0])
        .as("Millrace's first count of %s, restored from Samza's changelog", key)
        .isEqualTo(afterFirst.get(key) + 1));

    if (trip.exactlyOnce()) {
      // A commit that failed after its writes (a crash, a fence): its changelog records, each
      // key's next count, are in the changelog, aborted.
      List<Object[]> aborted = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(trip.changelog(), trip.partitions(),
          true)) {
        if (r.value() != null) {
          aborted.add(new Object[] {r.partition(), r.key(),
              ByteBuffer.allocate(4).putInt(ByteBuffer.wrap(r.value()).getInt() + 1).array()});
        }
      }
      kafka.writeAborted(trip.changelog(), aborted);
    }

    // 3. Back to Samza: the export (with the keys the job ran with here) writes Millrace's
    // checkpoint as Samza's own.
    String[] export = SamzaTestJobs.exportCheckpoint(
        file(trip.millraceKeys(config), dir, "millrace-leg.properties"));
    assertThat(export[2]).isEmpty();
    assertThat(export[0]).isEqualTo("0");
    Map<Integer, Long> exported = trip.samzaCheckpoints(trip.input());
    Map<Integer, Long> secondLasts = lasts(secondAt);
    secondLasts.forEach((p, last) -> assertThat(exported.get(p)).as("partition %d", p)
        // the last message Millrace processed, or past it the marker that ends its round
        .isBetween(last, trip.exactlyOnce() ? last + 1 : last));
    assertThat(export[1])
        .contains("wrote the checkpoints of " + trip.partitions() + " task(s) (versions [1, 2])"
            + " to Samza's checkpoint topic " + trip.samzaCheckpoints() + " on system kafka:")
        .contains("Partition 9: {kafka." + trip.input() + ".9=" + exported.get(9) + "}");
    assertWrittenAsSamzaWritesThem(samzasOwn,
        kafka.readAll(trip.samzaCheckpoints(), 1).subList(samzasOwn.size(),
            samzasOwn.size() + 2 * trip.partitions()));

    // 4. Samza resumes after Millrace's checkpoint, with each task's counts, and finishes.
    Map<Integer, List<Long>> thirdAt = trip.write(third);
    java.util.Set<String> before = new java.util.HashSet<>();
    trip.outputs().forEach(c -> before.add(c.at()));
    ChildJvms.runSamzaUntil(file, trip.job() + "-samza-2.log",
        "Samza checkpointing the third round",
        () -> trip.checkpointedThrough(lasts(thirdAt)));
    List<Counted> final3 = trip.outputs();
    List<Counted> bySamzaAgain = new ArrayList<>(final3);
    bySamzaAgain.removeIf(c -> before.contains(c.at()));
    assertThat(bySamzaAgain).extracting(Counted::runtime).containsOnly("samza");
    assertThat(bySamzaAgain).hasSize(third.size());
    assertThat(firstOffsets(bySamzaAgain)).isEqualTo(firsts(thirdAt));
    Map<String, Integer> afterSecond = counts(firstTwo);
    firstAndLast(bySamzaAgain).forEach((key, fl) -> assertThat(fl[0])
        .as("Samza's first count of %s, restored from Millrace's changelog writes", key)
        .isEqualTo(afterSecond.get(key) + 1));

    // Every message counted once, in the store and in the outputs.
    Map<String, Integer> model = counts(all);
    assertThat(trip.changelogCounts()).isEqualTo(model);
    Map<String, Integer> lastSent = new TreeMap<>();
    firstAndLast(final3).forEach((key, fl) -> lastSent.put(key, fl[1]));
    assertThat(lastSent).isEqualTo(model);
    assertThat(final3).hasSize(all.size());
  }

  @Test
  void aJobWithNoCheckpointHereIsRefusedInOneLineAndNothingIsWritten(@TempDir Path dir)
      throws Exception {
    kafka.createTopic("never-input", 2);
    Map<String, String> config = CountPerKeyJob.on(kafka, dir);
    config.put("job.name", "never_here");
    config.put("task.inputs", "kafka.never-input");

    String[] run = SamzaTestJobs.exportCheckpoint(file(config, dir));

    assertThat(run[0]).isEqualTo("1");
    assertThat(run[1]).isEmpty();
    assertThat(run[2]).isEqualTo("error: job never_here-1 has no checkpoint of its own here (it"
        + " never committed on Millrace, or its checkpoint was deleted): nothing was written to"
        + " Samza's checkpoint topic, which still holds what Samza last wrote\n");
    assertThat(kafka.exists("__samza_checkpoint_ver_1_for_never-here_1")).isFalse();
  }

  @Test
  void aCheckpointNamingAStreamTheJobDoesNotReadIsRefusedInOneLineAndNothingIsWritten(
      @TempDir Path dir) throws Exception {
    kafka.createTopic("stray-input", 2);
    // Millrace's checkpoint of the job when it read another topic (its record, as Millrace
    // writes it: task key, then one line per partition).
    String own = "__millrace-checkpoints-stray_job-1";
    kafka.createCompactedTopic(own);
    kafka.write(own, List.<Object[]>of(new Object[] {0, "task-0",
        "millrace-checkpoint 1\nkafka\tstray-input\t0\t4\nkafka\tgone-input\t0\t41\n"}));
    Map<String, String> config = CountPerKeyJob.on(kafka, dir);
    config.put("job.name", "stray_job");
    config.put("task.inputs", "kafka.stray-input");

    String[] run = SamzaTestJobs.exportCheckpoint(file(config, dir));

    assertThat(run[0]).isEqualTo("1");
    assertThat(run[2]).startsWith("error: job stray_job-1's checkpoint names stream"
        + " 'gone-input' on system 'kafka' (partition 0, offset 41), which is not one of its"
        + " inputs (task.inputs: stray-input): nothing was written").hasLineCount(1);
    assertThat(kafka.exists("__samza_checkpoint_ver_1_for_stray-job_1")).isFalse();
  }

  /**
   * Under {@code job.coordinator=kafka} the checkpoint is the group's committed offsets (the next
   * offset to read): the export writes the last message processed, as Samza counts.
   */
  @Test
  void underAKafkaGroupTheExportWritesTheLastOffsetTheGroupCommitted(@TempDir Path dir)
      throws Exception {
    String input = "grouped-input";
    kafka.createTopic(input, 3);
    Map<String, String> config = CountPerKeyJob.inAGroup(
        CountPerKeyJob.named(kafka, dir, "grouped_job", input, "grouped-changelog"));
    config.put("systems.kafka.consumer.isolation.level", "read_committed"); // the export asks
    List<Object[]> messages = new ArrayList<>();
    for (int i = 0; i < 3 * 7 + 2; i++) { // 8, 8 and 7 messages
      messages.add(new Object[] {i % 3, "g" + (i % 5), "m" + i});
    }
    kafka.write(input, messages);
    try (RunningJob job = SamzaTestJobs.start(new HashMap<>(config))) {
      Await.until(Await.DEADLINE, "the group's job counting its input", () -> kafka
          .readAll(OUTPUT, OUTPUT_PARTITIONS).stream()
          .filter(r -> new String(r.key(), StandardCharsets.UTF_8).startsWith("g"))
          .count() >= messages.size());
      job.stop();
    }

    String[] run = SamzaTestJobs.exportCheckpoint(file(config, dir));

    assertThat(run[2]).isEmpty();
    assertThat(run[0]).isEqualTo("0");
    Map<Integer, Long> written =
        CheckpointTopics.samza(kafka, "__samza_checkpoint_ver_1_for_grouped-job_1", input);
    assertThat(written).isEqualTo(Map.of(0, 7L, 1, 7L, 2, 6L));
  }

  /**
   * A Kafka transaction open on a task's changelog partition (here a writer that has not
   * finished; after a crash under {@code job.coordinator=kafka}, the killed process's, until the
   * broker aborts it): Samza, reading committed data, would restore that partition only up to
   * it. The export refuses in one line, writes nothing, and writes once it is over.
   */
  @Test
  void aTransactionOpenOnAChangelogIsRefusedInOneLineAndNothingIsWrittenUntilItEnds(
      @TempDir Path dir) throws Exception {
    String input = "open-input";
    String changelog = "open-changelog";
    kafka.createTopic(input, 3);
    Map<String, String> config = CountPerKeyJob.named(kafka, dir, "open_job", input, changelog);
    List<Object[]> messages = new ArrayList<>();
    for (int i = 0; i < 3 * 4; i++) {
      messages.add(new Object[] {i % 3, "o" + (i % 5), "m" + i});
    }
    kafka.write(input, messages);
    try (RunningJob job = SamzaTestJobs.start(new HashMap<>(config))) {
      Await.until(Await.DEADLINE, "the job counting its input", () -> kafka
          .readAll(OUTPUT, OUTPUT_PARTITIONS).stream()
          .filter(r -> new String(r.key(), StandardCharsets.UTF_8).startsWith("o"))
          .count() >= messages.size());
      job.stop();
    }
    String topic = "__samza_checkpoint_ver_1_for_open-job_1";
    Path file = file(config, dir);

    String[] refused;
    java.util.Properties p = new java.util.Properties();
    p.put("bootstrap.servers", kafka.servers());
    p.put("transactional.id", "open-changelog-writer");
    try (var writer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(p,
        new org.apache.kafka.common.serialization.ByteArraySerializer(),
        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      writer.initTransactions();
      writer.beginTransaction();
      writer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(changelog, 1,
          TestKafka.bytes("o1"), TestKafka.bytes("x"))).get();
      refused = SamzaTestJobs.exportCheckpoint(file);
      writer.abortTransaction();
    }

    assertThat(refused[0]).isEqualTo("1");
    assertThat(refused[1]).isEmpty();
    assertThat(refused[2]).isEqualTo("error: job open_job-1: a Kafka transaction is open on"
        + " store counts's changelog kafka.open-changelog partition(s) [1], and Samza would"
        + " restore only up to it, without what was committed after it: nothing was written to"
        + " Samza's checkpoint topic. If the job still runs here, stop it; the broker aborts a"
        + " transaction its writer left open its transaction.timeout.ms after it began: export"
        + " again then\n");
    assertThat(kafka.exists(topic)).isFalse();
    String[] run = SamzaTestJobs.exportCheckpoint(file);
    assertThat(run[2]).isEmpty();
    assertThat(run[0]).isEqualTo("0");
    assertThat(CheckpointTopics.samza(kafka, topic, input)).isEqualTo(Map.of(0, 3L, 1, 3L, 2, 3L));
  }

  /**
   * A store's changelog that exists without some of the tasks' partitions (recreated with fewer,
   * or the file names another topic): the export would have marked each store empty, and Samza
   * would have counted those tasks' keys from nothing. It refuses in one line naming the store,
   * the changelog and the partitions missing, and writes nothing.
   */
  @Test
  void aChangelogWithoutSomeTasksPartitionsIsRefusedInOneLineAndNothingIsWritten(
      @TempDir Path dir) throws Exception {
    kafka.createTopic("short-input", 3);
    kafka.createTopic("short-changelog", 1);
    // Millrace's checkpoint of the job's three tasks, as Millrace writes it.
    String own = "__millrace-checkpoints-short_job-1";
    kafka.createCompactedTopic(own);
    List<Object[]> checkpoint = new ArrayList<>();
    for (int task = 0; task < 3; task++) {
      checkpoint.add(new Object[] {0, "task-" + task,
          "millrace-checkpoint 1\nkafka\tshort-input\t" + task + "\t6\n"});
    }
    kafka.write(own, checkpoint);
    Map<String, String> config =
        CountPerKeyJob.named(kafka, dir, "short_job", "short-input", "short-changelog");

    String[] run = SamzaTestJobs.exportCheckpoint(file(config, dir));

    assertThat(run[0]).isEqualTo("1");
    assertThat(run[1]).isEmpty();
    assertThat(run[2]).isEqualTo("error: job short_job-1: store counts's changelog"
        + " kafka.short-changelog has 1 partition(s), without partition(s) [1, 2] that Samza"
        + " restores the job's tasks from: nothing was written to Samza's checkpoint topic. A"
        + " changelog needs a partition per task: export with the properties the job last ran"
        + " with here, or give the topic back its partitions\n");
    assertThat(kafka.exists("__samza_checkpoint_ver_1_for_short-job_1")).isFalse();
  }

  /**
   * The exported records are Samza's own format: the key byte for byte as Samza wrote its own
   * for the same task, the values with the same fields and partitions (offsets aside).
   */
  private static void assertWrittenAsSamzaWritesThem(
      List<ConsumerRecord<byte[], byte[]>> samzas, List<ConsumerRecord<byte[], byte[]>> ours)
      throws Exception {
    Map<String, ConsumerRecord<byte[], byte[]>> samzaByKey = new HashMap<>();
    samzas.forEach(r -> samzaByKey.put(new String(r.key(), StandardCharsets.UTF_8), r));
    for (ConsumerRecord<byte[], byte[]> r : ours) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      assertThat(samzaByKey).as("Samza's keys").containsKey(key);
      Map<?, ?> samzaValue = JSON.readValue(samzaByKey.get(key).value(), Map.class);
      Map<?, ?> ourValue = JSON.readValue(r.value(), Map.class);
      assertThat(shape(ourValue)).as("the value of %s: ours %s, Samza's %s", key,
          new String(r.value(), StandardCharsets.UTF_8),
          new String(samzaByKey.get(key).value(), StandardCharsets.UTF_8))
          .isEqualTo(shape(samzaValue));
    }
  }

  /** A JSON value's fields and nested fields, its text values replaced by their kind. */
  private static Object shape(Object json) {
    if (json instanceof Map<?, ?> map) {
      Map<String, Object> shape = new TreeMap<>();
      map.forEach((k, v) -> shape.put(k.toString(), shape(v)));
      return shape;
    }
    if (json instanceof String text && text.startsWith("{")) {
      try {
        return shape(JSON.readValue(text, Map.class)); // a state marker of JSON
      } catch (IOException e) {
        return text;
      }
    }
    if (json == null) {
      return "offset"; // (Samza's own changelog offset is null before its metadata is fresh)
    }
    if (json instanceof String text) {
      return text.matches("\\d+") ? "offset" : text.matches("\\d+-\\d+(:.*)?") ? "marker"
          : text;
    }
    return String.valueOf(json);
  }
}
