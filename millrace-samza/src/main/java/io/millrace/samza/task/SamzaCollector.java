package io.millrace.samza.task;

import io.millrace.api.Collector;
import io.millrace.samza.serde.SerdeUse;
import org.apache.samza.serializers.Serde;
import org.apache.samza.system.OutgoingMessageEnvelope;
import org.apache.samza.task.MessageCollector;

/**
 * Samza's {@link MessageCollector} over a Millrace {@link Collector}: key and message through the
 * stream's serdes (or those the envelope names), and a message with a partition key sent to the
 * partition Samza's Kafka producer would choose ({@link SamzaPartitioner}). Without a partition
 * key the output system chooses, as Kafka's producer does on Samza.
 */
final class SamzaCollector implements MessageCollector {
  final Collector millrace;
  private final OutputRoutes routes;

  SamzaCollector(Collector millrace, OutputRoutes routes) {
    this.millrace = millrace;
    this.routes = routes;
  }

  @Override
  public void send(OutgoingMessageEnvelope envelope) {
    OutputRoutes.Route route = routes.route(envelope.getSystemStream());
    Serde<Object> keySerde = envelope.getKeySerializerName() == null ? route.serdes().key()
        : routes.registry().serde("the envelope's key serializer",
            envelope.getKeySerializerName());
    Serde<Object> msgSerde = envelope.getMessageSerializerName() == null ? route.serdes().msg()
        : routes.registry().serde("the envelope's message serializer",
            envelope.getMessageSerializerName());
    Object partitionKey = envelope.getPartitionKey();
    int partition = partitionKey == null ? -1
        : SamzaPartitioner.partition(partitionKey, route.output().partitionCount());
    millrace.send(route.output(), partition, SerdeUse.write(keySerde, envelope.getKey()),
        SerdeUse.write(msgSerde, envelope.getMessage()));
  }
}
