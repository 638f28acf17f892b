package io.millrace.samza.task;

/**
 * Chooses the partition of a message with a partition key exactly as Samza's Kafka producer does
 * (KafkaSystemProducer with KafkaUtil.getIntegerPartitionKey in Samza 1.8): the absolute value of
 * the partition key object's {@code hashCode()}, 0 for {@link Integer#MIN_VALUE}, modulo the
 * partition count. The key is hashed as an object, before any serde, so co-partitioned jobs
 * downstream of a Samza job find each key where Samza put it. (A {@code byte[]} partition key
 * therefore goes by identity, on Samza as here.)
 */
public final class SamzaPartitioner {
  private SamzaPartitioner() {}

  /**
   * The partition for {@code partitionKey}.
   *
   * @param partitionKey the envelope's partition key (not null)
   * @param partitionCount the stream's partition count
   */
  public static int partition(Object partitionKey, int partitionCount) {
    int hash = partitionKey.hashCode();
    return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitionCount;
  }
}
