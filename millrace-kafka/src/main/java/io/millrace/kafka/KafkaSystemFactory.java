package io.millrace.kafka;

import io.millrace.kafka.settings.KafkaSettings;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointStoreFactory;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import io.millrace.spi.system.SystemFactory;
import io.millrace.spi.system.SystemProducer;
import io.millrace.kafka.admin.KafkaSystemAdmin;
import io.millrace.kafka.checkpoint.KafkaCheckpointStore;
import io.millrace.kafka.consume.KafkaSystemConsumer;
import io.millrace.kafka.produce.JobTransactions;
import io.millrace.kafka.produce.KafkaSystemProducer;
import java.util.HashSet;
import java.util.Set;

/**
 * The Kafka system: {@code systems.kafka.factory=io.millrace.kafka.KafkaSystemFactory} (or the
 * short name {@code kafka}) and {@code systems.kafka.bootstrap.servers} are all a job needs.
 * Streams on it are topics ({@code streams.<id>.physical.name}, default the id); a task reads
 * partition k of every input topic. With {@code task.checkpoint.system=kafka} the job's offsets go
 * to a compacted checkpoint topic.
 */
public final class KafkaSystemFactory implements SystemFactory, CheckpointStoreFactory {
  @Override
  public Set<String> systemKeys() {
    Set<String> keys = new HashSet<>(KafkaSettings.OWN_KEYS);
    keys.add("consumer.*");
    keys.add("producer.*");
    keys.add("admin.*");
    // Settings every Kafka client shares (security.protocol, ssl.*, sasl.*, client.dns.lookup...).
    keys.addAll(KafkaSettings.shared());
    return keys;
  }

  @Override
  public String shortName() {
    return "kafka";
  }

  @Override
  public Set<String> streamKeys() {
    return Set.of();
  }

  @Override
  public void validate(SystemContext context) {
    KafkaSettings settings = new KafkaSettings(context);
    settings.validate();
    if (transactional(context)) {
      settings.requireReadCommitted(JobTransactions.exactlyOnce(context.jobConfig())
          ? "the job is exactly-once (task.processing.guarantee=exactly-once)"
          : "the job commits in Kafka transactions on this cluster (job.coordinator=kafka)");
    }
  }

  @Override
  public SystemAdmin admin(SystemContext context) {
    return new KafkaSystemAdmin(new KafkaSettings(context),
        "millrace-" + context.jobName() + "-" + context.systemName() + "-admin",
        transactional(context));
  }

  /**
   * Whether the job's readers of this system read committed data only: its writes there are
   * transactional ({@code job.coordinator=kafka} on this cluster), or it is exactly-once. Nothing
   * a fenced member wrote, nor a transaction a crash left open, is then ever read.
   */
  static boolean transactional(SystemContext context) {
    return JobTransactions.readCommitted(context.jobConfig(), context.systemName());
  }

  /** A container's outputs, changelogs and checkpoint records commit in one transaction. */
  @Override
  public boolean supportsTransactions() {
    return true;
  }

  @Override
  public SystemConsumer consumer(SystemContext context) {
    return new KafkaSystemConsumer(context, new KafkaSettings(context));
  }

  @Override
  public SystemProducer producer(SystemContext context) {
    return new KafkaSystemProducer(context, new KafkaSettings(context));
  }

  @Override
  public CheckpointStore checkpointStore(SystemContext context) {
    return new KafkaCheckpointStore(new KafkaSettings(context), context.jobName(),
        context.jobConfig());
  }
}
