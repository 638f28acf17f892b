package io.millrace.examples.wordcount;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.WindowableTask;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The second stage of a word count on Kafka: counts the words of its partition and, every
 * {@code task.window.ms}, sends the words whose count changed to {@code counts} (key: the word,
 * value: its count so far), like a Kafka Streams count's updates.
 *
 * <p>The counts live in memory here, so the job recounts from the start of its input on every
 * run ({@code streams.words.offset.reset=true}); keeping them across restarts is what Millrace's
 * state stores are for.
 */
public final class CountWordsTask implements StreamTask, WindowableTask {
  private final Map<String, long[]> counts = new HashMap<>();
  private final Map<String, long[]> changed = new LinkedHashMap<>();

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    String word = (String) envelope.key();
    long[] count = counts.computeIfAbsent(word, w -> new long[1]);
    count[0]++;
    changed.put(word, count);
  }

  @Override
  public void window(Collector collector, TaskCoordinator coordinator) {
    for (Map.Entry<String, long[]> entry : changed.entrySet()) {
      collector.send("counts", entry.getKey(), entry.getValue()[0]);
    }
    changed.clear();
  }
}
