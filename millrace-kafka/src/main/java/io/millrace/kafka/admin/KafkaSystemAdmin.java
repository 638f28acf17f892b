package io.millrace.kafka.admin;

import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.kafka.settings.KafkaSettings;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Partition counts, offsets and topic creation on one Kafka cluster, through Kafka's {@link Admin}
 * client. Every call waits at most {@code startup.timeout.ms}; a broker that cannot be reached is
 * an error naming the servers and the key.
 *
 * <p>Offsets are asked for all the partitions a caller needs at once, so a container taking 1,000
 * partitions costs one round trip, not 1,000; they are never kept, since a restore reads up to the
 * head they give and a head from before the previous owner's last commit would lose its writes.
 */
public final class KafkaSystemAdmin implements SystemAdmin {
  private final KafkaSettings settings;
  private final boolean readCommitted;
  private final Admin admin;
  private final long timeoutMs;

  /** An admin on the system's cluster. */
  public KafkaSystemAdmin(KafkaSettings settings, String clientId) {
    this(settings, clientId, false);
  }

  /**
   * An admin on the system's cluster; {@code readCommitted}: a partition's upcoming offset is its
   * last stable offset (what a reader of committed data reaches), not its high watermark, as for
   * a job whose writes to this cluster are transactional ({@code job.coordinator=kafka}).
   */
  public KafkaSystemAdmin(KafkaSettings settings, String clientId, boolean readCommitted) {
    this.readCommitted = readCommitted;
    this.settings = settings;
    this.timeoutMs = settings.startupTimeoutMs();
    this.admin = Admin.create(settings.adminProperties(clientId));
  }

  /** The underlying client, for the checkpoint store. */
  public Admin client() {
    return admin;
  }

  @Override
  public int partitionCount(StreamSpec stream) {
    TopicDescription description = describe(stream.physicalName());
    if (description == null) {
      throw new IllegalArgumentException("input topic '" + stream.physicalName() + "' (stream "
          + stream.id() + ") does not exist on Kafka system '" + settings.system() + "' at "
          + settings.bootstrapServers() + ": create it, or fix streams." + stream.id()
          + ".physical.name");
    }
    return description.partitions().size();
  }

  /** The topic's description, or null if it does not exist. */
  public TopicDescription describe(String topic) {
    try {
      return admin.describeTopics(List.of(topic)).allTopicNames()
          .get(timeoutMs, TimeUnit.MILLISECONDS).get(topic);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return null;
      }
      throw failure("describe topic " + topic, e.getCause());
    } catch (TimeoutException e) {
      throw unreachable("describe topic " + topic);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while describing topic " + topic, e);
    }
  }

  @Override
  public StreamMetadata metadata(StreamSpec stream, int partition) {
    return metadata(stream, List.of(partition)).get(partition);
  }

  @Override
  public Map<Integer, StreamMetadata> metadata(StreamSpec stream, Collection<Integer> partitions) {
    return offsets(stream.physicalName(), partitions);
  }

  /** The offsets of a topic's partitions, each in one request for them all. */
  private Map<Integer, StreamMetadata> offsets(String topic, Collection<Integer> partitions) {
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p : partitions) {
      earliest.put(new TopicPartition(topic, p), OffsetSpec.earliest());
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    try {
      // Both requests in flight at once: one round trip for the lot, however many partitions.
      var first = admin.listOffsets(earliest).all();
      var last = admin.listOffsets(latest, new ListOffsetsOptions(readCommitted
          ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED)).all();
      Map<TopicPartition, ListOffsetsResultInfo> oldest = first.get(timeoutMs,
          TimeUnit.MILLISECONDS);
      Map<TopicPartition, ListOffsetsResultInfo> upcoming = last.get(timeoutMs,
          TimeUnit.MILLISECONDS);
      Map<Integer, StreamMetadata> all = new HashMap<>();
      for (int p : partitions) {
        TopicPartition tp = new TopicPartition(topic, p);
        long from = oldest.get(tp).offset();
        long to = upcoming.get(tp).offset();
        boolean empty = to <= from;
        all.put(p, new StreamMetadata(empty ? -1 : from, empty ? -1 : to - 1, to, false));
      }
      return all;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        throw noSuchPartitions(topic, partitions);
      }
      if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw missingOrUnreachable(topic, partitions);
      }
      throw failure("list the offsets of topic " + topic, e.getCause());
    } catch (TimeoutException e) {
      throw missingOrUnreachable(topic, partitions);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing offsets of " + topic, e);
    }
  }

  /** The admin retries an unknown partition until it times out: names it if that is why. */
  private RuntimeException missingOrUnreachable(String topic, Collection<Integer> partitions) {
    TopicDescription description = describe(topic);
    if (description == null || partitions.stream()
        .anyMatch(p -> p >= description.partitions().size())) {
      return noSuchPartitions(topic, partitions);
    }
    return unreachable("list the offsets of topic " + topic);
  }

  private IllegalArgumentException noSuchPartitions(String topic, Collection<Integer> partitions) {
    return new IllegalArgumentException("topic '" + topic + "' or its partition(s) " + partitions
        + " do not exist on Kafka system '" + settings.system() + "' at "
        + settings.bootstrapServers());
  }

  @Override
  public int ensureOutput(StreamSpec stream, int partitions) {
    String topic = stream.physicalName();
    TopicDescription description = describe(topic);
    if (description != null) {
      return description.partitions().size();
    }
    if (!settings.autoCreate()) {
      throw new IllegalArgumentException("output topic '" + topic + "' (stream " + stream.id()
          + ") does not exist on Kafka system '" + settings.system() + "' at "
          + settings.bootstrapServers() + " and " + settings.key(KafkaSettings.AUTO_CREATE)
          + "=false: create it, or allow Millrace to");
    }
    create(topic, partitions, settings.autoCreateReplication(), Map.of());
    return partitions;
  }

  /**
   * A store's changelog: a compacted topic with a partition per task, created if missing (whatever
   * {@code auto.create} says: a store cannot work without it). An existing one with fewer
   * partitions than tasks is an error naming it.
   */
  @Override
  public int ensureChangelog(StreamSpec stream, int partitions) {
    String topic = stream.physicalName();
    TopicDescription description = describe(topic);
    if (description == null) {
      create(topic, partitions, settings.autoCreateReplication(),
          Map.of("cleanup.policy", "compact"));
      return partitions;
    }
    if (description.partitions().size() < partitions) {
      throw new IllegalArgumentException("changelog topic '" + topic + "' has "
          + description.partitions().size() + " partitions but the job has " + partitions
          + " tasks: a changelog needs one partition per task");
    }
    return description.partitions().size();
  }

  /**
   * Creates a topic unless it exists (another process may create it at the same time).
   *
   * @param replication the replication factor, or -1 for the broker's default
   */
  public void create(String topic, int partitions, short replication, Map<String, String> configs) {
    NewTopic newTopic = new NewTopic(topic, Optional.of(partitions),
        replication < 0 ? Optional.empty() : Optional.of(replication)).configs(configs);
    try {
      admin.createTopics(List.of(newTopic)).all().get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw failure("create topic " + topic, e.getCause());
      }
    } catch (TimeoutException e) {
      throw unreachable("create topic " + topic);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + topic, e);
    }
    awaitLeaders(topic, partitions);
  }

  /**
   * Waits until every partition of a new topic has a leader that serves requests, so the first
   * sends do not race the topic's creation: a first batch refused and retried after later ones
   * were accepted stalls an idempotent producer on out-of-order sequence errors until its records
   * expire (seen twice on this broker). A leader in the metadata is not enough: the broker
   * publishes its metadata before its replica manager takes the leadership, so this also lists
   * every partition's offsets, which only a serving leader answers (the admin client retries
   * until it does).
   */
  private void awaitLeaders(String topic, int partitions) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (true) {
      TopicDescription description = describe(topic);
      if (description != null && description.partitions().size() >= partitions
          && description.partitions().stream().allMatch(p -> p.leader() != null
              && !p.leader().isEmpty())) {
        offsets(topic, java.util.stream.IntStream.range(0, partitions).boxed().toList());
        return;
      }
      if (System.nanoTime() > deadline) {
        throw unreachable("see every partition of the new topic " + topic + " get a leader");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
      }
    }
  }

  private IllegalStateException unreachable(String what) {
    return new IllegalStateException("cannot reach Kafka system '" + settings.system() + "' at "
        + settings.key(KafkaSettings.BOOTSTRAP_SERVERS) + "=" + settings.bootstrapServers()
        + ": could not " + what + " within " + timeoutMs + " ms ("
        + settings.key(KafkaSettings.STARTUP_TIMEOUT_MS) + ")");
  }

  private IllegalStateException failure(String what, Throwable cause) {
    if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
      return unreachable(what);
    }
    return new IllegalStateException("Kafka system '" + settings.system() + "' could not " + what
        + ": " + cause, cause);
  }

  @Override
  public void close() {
    admin.close(java.time.Duration.ofSeconds(5));
  }
}
