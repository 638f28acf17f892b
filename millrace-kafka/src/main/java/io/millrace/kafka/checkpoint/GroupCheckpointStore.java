package io.millrace.kafka.checkpoint;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.spi.system.SystemProducer;
import io.millrace.spi.system.Transaction;
import io.millrace.kafka.settings.KafkaSettings;
import io.millrace.kafka.produce.CommitTransactions;
import io.millrace.kafka.produce.ContainerTransaction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints of a job under {@code job.coordinator=kafka}: the group's committed offsets, one per
 * input partition, committed inside the container's transaction with the member's group metadata,
 * which is what fences a member that lost its tasks (see {@link ContainerTransaction}). Kafka's own
 * tools show them ({@code kafka-consumer-groups --describe} gives each partition's lag).
 *
 * <p>Offsets follow Kafka's convention, the next offset to read; a checkpoint's "last processed"
 * is one less. A task's stores' changelog offsets travel in the offset metadata of each of its
 * input partitions (task k's input partitions k, whichever changelog partition holds its stores:
 * under Samza's changelog order past 10 tasks, task 10's are in changelog partition 2):
 *
 * <pre>
 * millrace 1
 * &lt;store&gt; TAB &lt;changelog offset&gt;      (one line per store)
 * </pre>
 *
 * <p>Reading asks for stable offsets: while the previous owner's commit of a partition is still
 * pending in a transaction, the read waits for it to complete or abort, so a new owner never
 * starts from a checkpoint that is about to change. A partition the group has no offset for is
 * looked up in the job's checkpoint topic when it has one ({@code task.checkpoint.system}), so a
 * job that moves from {@code job.coordinator=local} keeps its place.
 */
public final class GroupCheckpointStore implements CheckpointStore {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCheckpointStore.class);
  private static final String MAGIC = "millrace 1\n";
  private final KafkaSettings settings;
  private final String system;
  private final String groupId;
  /** Input topic -> stream id. */
  private final Map<String, String> streamOfTopic;
  /** Input topic -> partition count. */
  private final Map<String, Integer> partitionsOfTopic;
  private final IntFunction<ConsumerGroupMetadata> groupMetadata;
  /** Task -> the changelog partition of its stores. */
  private final IntUnaryOperator changelogPartitionOf;
  /** Changelog partition -> its task, for the tasks of the inputs' partitions. */
  private final Map<Integer, Integer> taskOfChangelog = new HashMap<>();
  private final java.util.function.Supplier<KafkaCheckpointStore> legacySource;
  private KafkaCheckpointStore legacy;
  private final CommitTransactions transactions;
  private KafkaConsumer<byte[], byte[]> reader;
  /**
   * Guards the reader and the legacy store. Not this object's monitor, which {@link #writer}
   * takes on a container's loop: a read waits up to the start-up time-out for a pending commit,
   * on a container's restore thread, and no loop may wait behind it.
   */
  private final Object readLock = new Object();

  /**
   * A store.
   *
   * @param settings the group's Kafka system
   * @param groupId the group
   * @param streamOfTopic each input topic's stream id
   * @param partitionsOfTopic each input topic's partition count
   * @param groupMetadata a container's current group metadata (its member's generation)
   * @param transactionalIds a container's transactional id, for a container that sends nothing
   *     to the cluster itself and needs a producer for its commits
   * @param legacy opens the job's checkpoint topic, read for partitions the group has no offset
   *     for (only then: it may create the topic); or null
   */
  public GroupCheckpointStore(KafkaSettings settings, String groupId,
      Map<String, String> streamOfTopic, Map<String, Integer> partitionsOfTopic,
      IntFunction<ConsumerGroupMetadata> groupMetadata, IntFunction<String> transactionalIds,
      java.util.function.Supplier<KafkaCheckpointStore> legacy) {
    this(settings, groupId, streamOfTopic, partitionsOfTopic, groupMetadata, transactionalIds,
        legacy, task -> task);
  }

  /**
   * A store whose tasks keep their stores in the changelog partitions {@code
   * changelogPartitionOf} gives ({@code CoordinatorContext.changelogPartitionOf}); the other
   * parameters as above.
   */
  public GroupCheckpointStore(KafkaSettings settings, String groupId,
      Map<String, String> streamOfTopic, Map<String, Integer> partitionsOfTopic,
      IntFunction<ConsumerGroupMetadata> groupMetadata, IntFunction<String> transactionalIds,
      java.util.function.Supplier<KafkaCheckpointStore> legacy,
      IntUnaryOperator changelogPartitionOf) {
    this.changelogPartitionOf = changelogPartitionOf;
    int tasks = partitionsOfTopic.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    for (int task = 0; task < tasks; task++) {
      taskOfChangelog.put(changelogPartitionOf.applyAsInt(task), task);
    }
    this.settings = settings;
    this.system = settings.system();
    this.groupId = groupId;
    this.streamOfTopic = streamOfTopic;
    this.partitionsOfTopic = partitionsOfTopic;
    this.groupMetadata = groupMetadata;
    this.transactions = new CommitTransactions(settings, "millrace-" + groupId,
        transactionalIds);
    this.legacySource = legacy;
  }

  @Override
  public Map<StreamPartition, Long> read() {
    synchronized (readLock) {
      return readOnly(null);
    }
  }

  /**
   * Only the given partitions: a read waits for every commit still pending on what it reads, and
   * the other members commit theirs every few seconds, so reading all would often wait for a
   * commit of a task this container is not taking.
   */
  @Override
  public Map<StreamPartition, Long> read(Set<Integer> partitions) {
    synchronized (readLock) {
      return readOnly(java.util.Objects.requireNonNull(partitions, "partitions"));
    }
  }

  /** The checkpoints of {@code partitions}, or of every partition when null. */
  private Map<StreamPartition, Long> readOnly(Set<Integer> partitions) {
    Set<TopicPartition> all = new java.util.LinkedHashSet<>();
    partitionsOfTopic.forEach((topic, count) -> {
      for (int p = 0; p < count; p++) {
        if (partitions == null || partitions.contains(p)) {
          all.add(new TopicPartition(topic, p));
        }
      }
    });
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      // Stable offsets (Kafka asks for them by default): a commit still pending in a transaction
      // is waited for, up to the time-out.
      committed = reader().committed(all, Duration.ofMillis(settings.startupTimeoutMs()));
    } catch (KafkaException e) {
      throw new CheckpointException("cannot read the committed offsets of group " + groupId
          + " on Kafka system '" + system + "' at " + settings.bootstrapServers() + " within "
          + settings.startupTimeoutMs() + " ms (" + settings.key(KafkaSettings.STARTUP_TIMEOUT_MS)
          + "): " + e, e);
    }
    Map<StreamPartition, Long> offsets = new HashMap<>();
    boolean missing = false;
    for (TopicPartition tp : all) {
      OffsetAndMetadata om = committed.get(tp);
      if (om == null) {
        missing = true;
        continue;
      }
      offsets.put(new StreamPartition(system, streamOfTopic.get(tp.topic()), tp.partition()),
          om.offset() - 1);
      parseMetadata(tp, om.metadata(), offsets);
    }
    if (missing && legacySource != null) {
      if (legacy == null) {
        legacy = legacySource.get();
      }
      LOG.info("group {}: partitions without a committed offset resume from checkpoint topic {}",
          groupId, legacy.topic());
      legacy.read().forEach((sp, offset) -> {
        if (partitions == null || partitions.contains(sp.stream().startsWith("changelog:")
            ? taskOf(sp.partition()) : sp.partition())) {
          offsets.putIfAbsent(sp, offset);
        }
      });
    }
    return offsets;
  }

  /** The task whose stores are in changelog partition {@code changelogPartition}. */
  private int taskOf(int changelogPartition) {
    return taskOfChangelog.getOrDefault(changelogPartition, changelogPartition);
  }

  /** Input partition {@code tp}'s metadata: its task's changelog offsets. */
  private void parseMetadata(TopicPartition tp, String metadata, Map<StreamPartition, Long> into) {
    if (metadata == null || metadata.isEmpty()) {
      return;
    }
    if (!metadata.startsWith(MAGIC)) {
      throw new CheckpointException("the offset metadata of group " + groupId + " for " + tp
          + " is not Millrace's ('" + metadata.lines().findFirst().orElse("")
          + "'): did another application commit offsets for this group? Give the job its own "
          + "group (job.coordinator.group.id)");
    }
    for (String line : metadata.substring(MAGIC.length()).split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      String[] fields = line.split("\t");
      try {
        into.put(new StreamPartition(system, "changelog:" + fields[0],
            changelogPartitionOf.applyAsInt(tp.partition())), Long.parseLong(fields[1]));
      } catch (RuntimeException e) {
        throw new CheckpointException("the offset metadata of group " + groupId + " for " + tp
            + " has a bad line '" + line + "': expected <store> TAB <changelog offset>", e);
      }
    }
  }

  /**
   * The changelog offsets a checkpoint's offset metadata carries, by store; empty if there are
   * none or they are not Millrace's (for {@code bin/millrace status}, which only shows them).
   */
  public static Map<String, Long> changelogOffsets(String metadata) {
    Map<String, Long> offsets = new TreeMap<>();
    if (metadata == null || !metadata.startsWith(MAGIC)) {
      return offsets;
    }
    for (String line : metadata.substring(MAGIC.length()).split("\n")) {
      String[] fields = line.split("\t");
      if (fields.length == 2) {
        try {
          offsets.put(fields[0], Long.parseLong(fields[1]));
        } catch (NumberFormatException ignored) {
          // shown as unknown
        }
      }
    }
    return offsets;
  }

  private KafkaConsumer<byte[], byte[]> reader() {
    if (reader == null) {
      Properties props = settings.consumerProperties("millrace-" + groupId + "-offsets-reader");
      props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId); // reads the group's offsets, never joins
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      reader = new KafkaConsumer<>(props);
    }
    return reader;
  }

  @Override
  public CheckpointWriter writer(int containerId, List<StreamPartition> partitions) {
    return writer(containerId, partitions, List.of());
  }

  @Override
  public synchronized CheckpointWriter writer(int containerId, List<StreamPartition> partitions,
      List<SystemProducer> producers) {
    return new Writer(containerId, partitions, transactions.of(containerId, producers));
  }

  /**
   * Commits one container's checkpoint: its input partitions' next offsets, each with its task's
   * changelog offsets as metadata. The layout (topic partitions, which changelog offsets go to
   * which task) is worked out once per layout, not per commit.
   */
  private final class Writer implements CheckpointWriter {
    private final int containerId;
    private final ContainerTransaction transaction;
    /** Index of each input partition in the offsets array, and its topic partition. */
    private final int[] inputIndex;
    private final TopicPartition[] inputs;
    /** For each input: the indices of its task's changelog offsets, and their store names. */
    private final int[][] changelogIndex;
    private final String[][] changelogStore;
    private final StringBuilder text = new StringBuilder();

    Writer(int containerId, List<StreamPartition> partitions, ContainerTransaction transaction) {
      this.containerId = containerId;
      this.transaction = transaction;
      Map<String, String> topicOfStream = new HashMap<>();
      streamOfTopic.forEach((topic, stream) -> topicOfStream.put(stream, topic));
      Map<Integer, List<Integer>> changelogsOfTask = new TreeMap<>();
      List<Integer> inputIdx = new ArrayList<>();
      for (int i = 0; i < partitions.size(); i++) {
        StreamPartition p = partitions.get(i);
        if (p.stream().startsWith("changelog:")) {
          changelogsOfTask.computeIfAbsent(taskOf(p.partition()), t -> new ArrayList<>()).add(i);
        } else if (topicOfStream.containsKey(p.stream())) {
          inputIdx.add(i);
        } else {
          throw new IllegalArgumentException("partition " + p + " is neither an input of the "
              + "group's cluster nor a changelog: it cannot be checkpointed in group " + groupId);
        }
      }
      inputIndex = inputIdx.stream().mapToInt(Integer::intValue).toArray();
      inputs = new TopicPartition[inputIndex.length];
      changelogIndex = new int[inputIndex.length][];
      changelogStore = new String[inputIndex.length][];
      for (int j = 0; j < inputIndex.length; j++) {
        StreamPartition p = partitions.get(inputIndex[j]);
        inputs[j] = new TopicPartition(topicOfStream.get(p.stream()), p.partition());
        List<Integer> logs = changelogsOfTask.getOrDefault(p.partition(), List.of());
        changelogIndex[j] = logs.stream().mapToInt(Integer::intValue).toArray();
        changelogStore[j] = new String[logs.size()];
        for (int k = 0; k < logs.size(); k++) {
          changelogStore[j][k] = partitions.get(logs.get(k)).stream()
              .substring("changelog:".length());
        }
      }
    }

    /**
     * The offsets commit in the container's transaction, with what it sent since the last: all of
     * it where every producer of the container sends in that transaction.
     */
    @Override
    public Transaction transaction() {
      return transaction;
    }

    @Override
    public void write(long[] offsets) {
      // The member's generation now: the container holds its ownership permit from its offsets
      // to this write (no membership poll can change it meanwhile), or a revoke's membership
      // waits in its callback for it.
      ConsumerGroupMetadata group = groupMetadata.apply(containerId);
      Map<TopicPartition, OffsetAndMetadata> commit = new LinkedHashMap<>();
      for (int j = 0; j < inputs.length; j++) {
        long last = offsets[inputIndex[j]];
        if (last == NONE) {
          continue; // nothing processed since it came, and no checkpoint before: nothing to say
        }
        text.setLength(0);
        text.append(MAGIC);
        for (int k = 0; k < changelogIndex[j].length; k++) {
          long changelog = offsets[changelogIndex[j][k]];
          if (changelog != NONE) {
            text.append(changelogStore[j][k]).append('\t').append(changelog).append('\n');
          }
        }
        commit.put(inputs[j], new OffsetAndMetadata(last + 1, text.toString()));
      }
      transaction.commit(commit, group);
    }
  }

  @Override
  public synchronized void close() {
    synchronized (readLock) {
      if (reader != null) {
        reader.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(
            Duration.ofSeconds(5)));
        reader = null;
      }
      if (legacy != null) {
        legacy.close();
      }
    }
    transactions.close();
  }
}
