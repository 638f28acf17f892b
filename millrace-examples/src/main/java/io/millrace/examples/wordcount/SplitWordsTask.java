package io.millrace.examples.wordcount;

import io.millrace.api.Collector;
import io.millrace.api.Coordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import java.util.Locale;

/**
 * The first stage of a word count on Kafka: splits lines into words and sends each word, as key
 * and value, to {@code words}. Keying by word re-partitions the stream, so every occurrence of a
 * word reaches the same partition, hence the same counting task (Kafka Streams' groupByKey).
 */
public final class SplitWordsTask implements StreamTask {
  @Override
  public void process(Envelope envelope, Collector collector, Coordinator coordinator) {
    String line = (String) envelope.value();
    int start = -1;
    for (int i = 0; i <= line.length(); i++) {
      boolean wordChar = i < line.length()
          && (Character.isLetter(line.charAt(i)) || (start >= 0 && line.charAt(i) == '\''));
      if (wordChar && start < 0) {
        start = i;
      } else if (!wordChar && start >= 0) {
        String word = line.substring(start, i).toLowerCase(Locale.ROOT);
        collector.send("words", word, word);
        start = -1;
      }
    }
  }
}
