package io.millrace.examples.wordcount;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;

/**
 * The first stage of a word count on Kafka: splits lines into words and sends each word, as key
 * and value, to {@code words}. Keying by word re-partitions the stream, so every occurrence of a
 * word reaches the same partition, hence the same counting task (Kafka Streams' groupByKey).
 */
public final class SplitWordsTask implements StreamTask {
  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    Words.forEach((String) envelope.value(), word -> collector.send("words", word, word));
  }
}
