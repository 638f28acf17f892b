package io.millrace.examples.wordcount;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.Output;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts the words of its input lines and, when the input ends, writes one line per word,
 * {@code word TAB count}, most frequent first. Words are runs of letters and apostrophes,
 * lower-cased.
 */
public final class WordCountTask implements StreamTask, InitableTask, EndOfStreamListener {
  private final Map<String, long[]> counts = new HashMap<>();
  private Output output;

  @Override
  public void init(TaskContext context) {
    output = context.output("counts");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    Words.forEach((String) envelope.value(),
        word -> counts.computeIfAbsent(word, w -> new long[1])[0]++);
  }

  @Override
  public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
    List<Map.Entry<String, long[]>> sorted = new ArrayList<>(counts.entrySet());
    sorted.sort((a, b) -> a.getValue()[0] != b.getValue()[0]
        ? Long.compare(b.getValue()[0], a.getValue()[0])
        : a.getKey().compareTo(b.getKey()));
    for (Map.Entry<String, long[]> entry : sorted) {
      collector.send(output, 0, entry.getKey(), entry.getValue()[0]);
    }
  }
}
