package io.millrace.kafka.checkpoint;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.kafka.settings.KafkaSettings;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import io.millrace.spi.system.Transaction;
import io.millrace.kafka.admin.KafkaSystemAdmin;
import io.millrace.kafka.produce.CommitTransactions;
import io.millrace.kafka.produce.ContainerTransaction;
import io.millrace.kafka.produce.JobTransactions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints in a compacted Kafka topic, one per job ({@code __millrace-checkpoints-<job.name>}
 * by default, one partition), as Samza keeps them: the record key is the task
 * ({@code task-<partition number>}), the value the offsets of that task's input partitions.
 * Compaction keeps the newest record of each task, so the topic stays small and a restart reads
 * it from the start in one pass. Keyed by task, not by container, so a task's checkpoint follows
 * it wherever it runs.
 *
 * <p>Value layout (UTF-8 text):
 *
 * <pre>
 * millrace-checkpoint 1
 * &lt;system&gt; TAB &lt;stream&gt; TAB &lt;partition&gt; TAB &lt;offset&gt;     (one line per partition)
 * </pre>
 *
 * <p>Kafka's record CRC guards the bytes; a value that does not parse is an error naming the topic,
 * the record's offset and its key: never a silent restart from zero. A write waits for the
 * broker's acknowledgement ({@code acks=all}) before the commit counts as done. A task whose
 * offsets did not move since its last record is not written again.
 *
 * <p>Under {@code task.processing.guarantee=exactly-once} the records go into the container's
 * transaction ({@link ContainerTransaction}), which commits them with the outputs and changelog
 * records they cover; the topic is read {@code read_committed}. Before it reads, the store
 * fences the previous incarnation of every container (it begins and ends the containers'
 * transactional ids, which aborts what a crashed or paused process left open), then reads to the
 * end as of then: a checkpoint read while an older process could still commit would be one its
 * outputs have passed.
 */
public final class KafkaCheckpointStore implements CheckpointStore {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaCheckpointStore.class);
  private static final String MAGIC = "millrace-checkpoint 1\n";
  private final KafkaSettings settings;
  private final String topic;
  private final KafkaSystemAdmin admin;
  private final long timeoutMs;
  private KafkaProducer<byte[], byte[]> producer;
  /** Exactly-once: each container's transactional id, and the containers to fence; else null. */
  private final IntFunction<String> transactionalIds;
  private final int containers;
  private final CommitTransactions transactions;

  /**
   * A store on the job's checkpoint topic; creates the topic if it is missing and
   * {@code auto.create} allows it.
   */
  public KafkaCheckpointStore(KafkaSettings settings, String jobName) {
    this(settings, jobName, Map.of("job.name", jobName));
  }

  /**
   * A store on the job's checkpoint topic, transactional if the job is exactly-once; creates the
   * topic if it is missing and {@code auto.create} allows it.
   */
  public KafkaCheckpointStore(KafkaSettings settings, String jobName,
      Map<String, String> jobConfig) {
    if (JobTransactions.exactlyOnce(jobConfig)) {
      this.transactionalIds = c -> JobTransactions.transactionalId(jobConfig, settings.system(),
          c);
      this.containers = Integer.parseInt(jobConfig.getOrDefault("job.container.count", "1")
          .trim());
      this.transactions = new CommitTransactions(settings, "millrace-" + jobName,
          transactionalIds);
    } else {
      this.transactionalIds = null;
      this.containers = 0;
      this.transactions = null;
    }
    this.settings = settings;
    this.topic = settings.checkpointTopic(jobName);
    this.timeoutMs = settings.startupTimeoutMs();
    this.admin = new KafkaSystemAdmin(settings, "millrace-" + jobName + "-checkpoint-admin");
    try {
      ensureTopic();
    } catch (RuntimeException e) {
      admin.close();
      throw e;
    }
  }

  /** The checkpoint topic. */
  public String topic() {
    return topic;
  }

  private void ensureTopic() {
    TopicDescription description = admin.describe(topic);
    if (description == null) {
      if (!settings.autoCreate()) {
        throw new CheckpointException("checkpoint topic '" + topic + "' does not exist on Kafka "
            + "system '" + settings.system() + "' and " + settings.key(KafkaSettings.AUTO_CREATE)
            + "=false: create it (1 partition, cleanup.policy=compact) or allow Millrace to");
      }
      admin.create(topic, 1, settings.checkpointReplication(),
          Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
      return;
    }
    if (description.partitions().size() != 1) {
      throw new CheckpointException("checkpoint topic '" + topic + "' has "
          + description.partitions().size() + " partitions; it must have exactly 1");
    }
    String policy = cleanupPolicy();
    if (policy != null && !policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
      throw new CheckpointException("checkpoint topic '" + topic + "' has cleanup.policy="
          + policy + ": it must be compacted, or retention would delete checkpoints and a restart "
          + "would start over. Set cleanup.policy=compact on it");
    }
  }

  private String cleanupPolicy() {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try {
      Config config = admin.client().describeConfigs(List.of(resource)).all()
          .get(timeoutMs, TimeUnit.MILLISECONDS).get(resource);
      ConfigEntry entry = config == null ? null : config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
      return entry == null ? null : entry.value();
    } catch (ExecutionException | TimeoutException e) {
      throw new CheckpointException("cannot read the configuration of checkpoint topic '" + topic
          + "' on Kafka system '" + settings.system() + "': " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckpointException("interrupted", e);
    }
  }

  @Override
  public Map<StreamPartition, Long> read() {
    Properties props = settings.consumerProperties("millrace-checkpoint-reader");
    props.put("max.poll.records", "1000");
    if (transactionalIds != null) {
      props.put("isolation.level", "read_committed");
      fencePreviousProcess();
    }
    Map<String, Map<StreamPartition, Long>> byTask = new HashMap<>();
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      // Exactly-once: to the end of the log, not only to its last stable offset, so that a
      // transaction still open (of a process this one did not fence) is waited for, not skipped.
      long end = transactionalIds != null ? logEnd()
          : consumer.endOffsets(List.of(tp), Duration.ofMillis(timeoutMs)).get(tp);
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      while (consumer.position(tp, Duration.ofMillis(timeoutMs)) < end) {
        if (System.nanoTime() > deadline) {
          throw new CheckpointException("cannot read checkpoint topic '" + topic + "' to its end "
              + "(offset " + end + ") within " + timeoutMs + " ms ("
              + settings.key(KafkaSettings.STARTUP_TIMEOUT_MS) + ")"
              + (transactionalIds == null ? "" : ": a transaction on it is still open, of a "
              + "process of this job this one did not fence (one with another "
              + "job.container.count or job.instance.id), which the broker aborts after its "
              + "transaction.timeout.ms"));
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          String task = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
          if (task == null) {
            throw corrupt(r, "it has no key");
          }
          if (r.value() == null) {
            byTask.remove(task); // a tombstone: the task's checkpoint was deleted
          } else {
            byTask.put(task, parse(r, task));
          }
        }
      }
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw new CheckpointException("cannot reach Kafka system '" + settings.system() + "' at "
          + settings.bootstrapServers() + " to read checkpoint topic '" + topic + "' within "
          + timeoutMs + " ms (" + settings.key(KafkaSettings.STARTUP_TIMEOUT_MS) + ")", e);
    }
    Map<StreamPartition, Long> offsets = new HashMap<>();
    byTask.values().forEach(offsets::putAll);
    return offsets;
  }

  /**
   * Begins the transactions of every container of this job, as its producers will: the broker
   * aborts what the previous process left open and refuses that process's commits from now on.
   */
  private void fencePreviousProcess() {
    for (int c = 0; c < containers; c++) {
      CommitTransactions.fence(settings, transactionalIds.apply(c));
    }
  }

  /** The topic's log end offset (its high watermark), committed or not. */
  private long logEnd() {
    // The store's admin reads uncommitted offsets: its upcoming offset is the log end.
    return admin.metadata(new StreamSpec(topic, topic, null, null), 0).upcoming();
  }

  private Map<StreamPartition, Long> parse(ConsumerRecord<byte[], byte[]> r, String task) {
    String text = new String(r.value(), StandardCharsets.UTF_8);
    if (!text.startsWith(MAGIC)) {
      throw corrupt(r, "it does not start with '" + MAGIC.trim() + "'");
    }
    Map<StreamPartition, Long> offsets = new LinkedHashMap<>();
    String[] lines = text.substring(MAGIC.length()).split("\n");
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].isEmpty()) {
        continue;
      }
      String[] fields = lines[i].split("\t");
      if (fields.length != 4) {
        throw corrupt(r, "line " + (i + 2) + " should have 4 tab-separated fields: " + lines[i]);
      }
      try {
        offsets.put(new StreamPartition(fields[0], fields[1], Integer.parseInt(fields[2])),
            Long.parseLong(fields[3]));
      } catch (NumberFormatException e) {
        throw corrupt(r, "line " + (i + 2) + " has a bad number: " + lines[i]);
      }
    }
    return offsets;
  }

  private CheckpointException corrupt(ConsumerRecord<byte[], byte[]> r, String what) {
    String key = r.key() == null ? "none" : new String(r.key(), StandardCharsets.UTF_8);
    return new CheckpointException("checkpoint record at topic " + r.topic() + " partition "
        + r.partition() + " offset " + r.offset() + " (key " + key + ") is damaged: " + what
        + ". Fix it, or write a tombstone for its key (that task restarts from "
        + "streams.<id>.offset.default)");
  }

  @Override
  public synchronized CheckpointWriter writer(int containerId, List<StreamPartition> partitions,
      List<SystemProducer> producers) {
    if (transactions == null) {
      return writer(containerId, partitions);
    }
    ContainerTransaction transaction = transactions.of(containerId, producers);
    // (Under exactly-once every output and changelog is on this cluster: else the job is refused.)
    return new Writer(null, transaction, partitions);
  }

  @Override
  public synchronized CheckpointWriter writer(int containerId, List<StreamPartition> partitions) {
    if (transactions != null) {
      throw new IllegalStateException("an exactly-once checkpoint is written in its container's "
          + "transaction: ask for the writer with the container's producers");
    }
    if (producer == null) {
      Properties props = settings.producerProperties("millrace-checkpoint-writer");
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
      producer = new KafkaProducer<>(props);
    }
    return new Writer(producer, null, partitions);
  }

  /**
   * Writes one container's tasks. Each task's line prefixes are encoded once; a write encodes
   * only the offsets, and only for tasks whose offsets moved.
   */
  private final class Writer implements CheckpointWriter {
    /** The store's own producer, or null: the records go into {@link #transaction}. */
    private final KafkaProducer<byte[], byte[]> producer;
    private final ContainerTransaction transaction;
    /** Per task: its key, its partitions' indices and their encoded line prefixes. */
    private final byte[][] keys;
    private final int[][] indices;
    private final String[][] prefixes;
    private final long[] lastWritten;
    private final List<Future<RecordMetadata>> pending = new ArrayList<>();
    private final StringBuilder text = new StringBuilder();

    Writer(KafkaProducer<byte[], byte[]> producer, ContainerTransaction transaction,
        List<StreamPartition> partitions) {
      this.producer = producer;
      this.transaction = transaction;
      Map<Integer, List<Integer>> byTask = new LinkedHashMap<>();
      for (int i = 0; i < partitions.size(); i++) {
        byTask.computeIfAbsent(partitions.get(i).partition(), t -> new ArrayList<>()).add(i);
      }
      int tasks = byTask.size();
      keys = new byte[tasks][];
      indices = new int[tasks][];
      prefixes = new String[tasks][];
      int t = 0;
      for (Map.Entry<Integer, List<Integer>> task : byTask.entrySet()) {
        keys[t] = ("task-" + task.getKey()).getBytes(StandardCharsets.UTF_8);
        indices[t] = task.getValue().stream().mapToInt(Integer::intValue).toArray();
        prefixes[t] = new String[indices[t].length];
        for (int j = 0; j < indices[t].length; j++) {
          StreamPartition p = partitions.get(indices[t][j]);
          prefixes[t][j] = p.system() + "\t" + p.stream() + "\t" + p.partition() + "\t";
        }
        t++;
      }
      lastWritten = new long[partitions.size()];
      java.util.Arrays.fill(lastWritten, NONE);
    }

    /**
     * The records commit in the container's transaction (if it has one), with what it sent since
     * the last: all of it where every producer of the container sends in that transaction.
     */
    @Override
    public Transaction transaction() {
      return transaction;
    }

    @Override
    public void write(long[] offsets) {
      pending.clear();
      for (int t = 0; t < keys.length; t++) {
        if (!moved(t, offsets)) {
          continue;
        }
        text.setLength(0);
        text.append(MAGIC);
        boolean any = false;
        for (int j = 0; j < indices[t].length; j++) {
          long offset = offsets[indices[t][j]];
          if (offset != NONE) {
            text.append(prefixes[t][j]).append(offset).append('\n');
            any = true;
          }
        }
        if (any) {
          ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, 0, keys[t],
              text.toString().getBytes(StandardCharsets.UTF_8));
          pending.add(transaction != null ? transaction.send(record) : producer.send(record));
        }
      }
      if (transaction != null) {
        if (LOG.isDebugEnabled()) {
          // What each commit checkpoints, to set beside its transaction in the broker's log (the
          // exactly-once kill tests turn this on in their processes).
          LOG.debug("checkpoint topic {}: a commit on {} writes {} record(s) for offsets {} "
              + "(last written {}){}", topic, Thread.currentThread().getName(), pending.size(),
              java.util.Arrays.toString(offsets), java.util.Arrays.toString(lastWritten),
              pending.isEmpty() && transaction.isOpen()
                  ? ": none moved, while the transaction holds sends" : "");
        }
        // Commits the records with everything the container sent since the last commit (or
        // aborts it all and throws); the records' futures are then complete (the transaction
        // checks them before it commits: Kafka's producer once committed without one).
        transaction.commit(Map.of(), null);
      } else {
        producer.flush();
      }
      StringBuilder at = transaction != null && LOG.isDebugEnabled() ? new StringBuilder() : null;
      for (Future<RecordMetadata> f : pending) {
        try {
          RecordMetadata written = f.get(); // complete after the flush or the commit
          if (at != null) {
            at.append(at.length() == 0 ? "" : ", ").append(written.offset());
          }
        } catch (ExecutionException e) {
          throw new CheckpointException("cannot write a checkpoint to topic '" + topic
              + "' on Kafka system '" + settings.system() + "': " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CheckpointException("interrupted while writing a checkpoint", e);
        }
      }
      if (at != null && at.length() > 0) {
        // Where the broker put them: beside its log, whether a committed transaction holds them.
        LOG.debug("checkpoint topic {}: the commit's record(s) at offset(s) {}", topic, at);
      }
      for (int t = 0; t < keys.length; t++) {
        for (int i : indices[t]) {
          lastWritten[i] = offsets[i];
        }
      }
    }

    private boolean moved(int t, long[] offsets) {
      for (int i : indices[t]) {
        if (offsets[i] != lastWritten[i]) {
          return true;
        }
      }
      return false;
    }
  }

  @Override
  public synchronized void close() {
    if (transactions != null) {
      transactions.close();
    }
    if (producer != null) {
      producer.close(Duration.ofSeconds(10));
      producer = null;
    }
    admin.close();
  }
}
