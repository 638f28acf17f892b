package io.millrace.kafka.produce;

import io.millrace.spi.system.SystemProducer;
import io.millrace.kafka.settings.KafkaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.IntFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The transaction each container's checkpoint commits in: its Kafka producer's on the checkpoints'
 * cluster, or, for a container that sends nothing there itself, one of a producer of the
 * checkpoint store's own under the container's transactional id, so that its commits are fenced
 * all the same. Used by the checkpoint stores from the containers' threads.
 */
public final class CommitTransactions implements AutoCloseable {
  private final KafkaSettings settings;
  private final String clientPrefix;
  private final IntFunction<String> transactionalIds;
  private final Map<Integer, ContainerTransaction> own = new HashMap<>();
  private final List<KafkaProducer<byte[], byte[]>> ownProducers = new ArrayList<>();

  /**
   * @param settings the checkpoints' Kafka system
   * @param clientPrefix the client id of the store's own producers, before the container id
   * @param transactionalIds a container's transactional id
   */
  public CommitTransactions(KafkaSettings settings, String clientPrefix,
      IntFunction<String> transactionalIds) {
    this.settings = settings;
    this.clientPrefix = clientPrefix;
    this.transactionalIds = transactionalIds;
  }

  /** The transaction of container {@code containerId}, whose producers are {@code producers}. */
  public synchronized ContainerTransaction of(int containerId, List<SystemProducer> producers) {
    for (SystemProducer producer : producers) {
      // (Through the SPI: whichever producer sends in a transaction of this cluster's.)
      if (producer.transaction() instanceof ContainerTransaction t
          && t.system().equals(settings.system())) {
        return t;
      }
    }
    return own.computeIfAbsent(containerId, this::ownTransaction);
  }

  private ContainerTransaction ownTransaction(int containerId) {
    String id = transactionalIds.apply(containerId);
    Properties props = settings.producerProperties(clientPrefix + "-" + containerId + "-commits");
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props);
    ownProducers.add(producer);
    return new ContainerTransaction(producer, id, where(settings), settings.system());
  }

  /**
   * Begins (and leaves) transactional id {@code transactionalId} once: the broker aborts the
   * transaction a previous producer with that id left open and refuses its commits from now on.
   */
  public static void fence(KafkaSettings settings, String transactionalId) {
    Properties props = settings.producerProperties("millrace-fence-" + transactionalId);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      new ContainerTransaction(producer, transactionalId, where(settings));
    }
  }

  /** The cluster, for messages: the system's name, its servers and its key for the wait. */
  static String where(KafkaSettings settings) {
    return "Kafka system '" + settings.system() + "' at " + settings.bootstrapServers() + " ("
        + settings.key("producer.max.block.ms") + ")";
  }

  @Override
  public synchronized void close() {
    for (ContainerTransaction transaction : own.values()) {
      try {
        transaction.abort();
      } catch (RuntimeException e) {
        // closing follows; the broker aborts what is left at the transaction's time-out
      }
    }
    own.clear();
    for (KafkaProducer<byte[], byte[]> producer : ownProducers) {
      producer.close(Duration.ofSeconds(10));
    }
    ownProducers.clear();
  }
}
