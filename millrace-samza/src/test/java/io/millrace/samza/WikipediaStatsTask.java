package io.millrace.samza;

import java.util.HashMap;
import java.util.Map;
import org.apache.samza.context.Context;
import org.apache.samza.metrics.Counter;
import org.apache.samza.storage.kv.KeyValueStore;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.OutgoingMessageEnvelope;
import org.apache.samza.system.SystemStream;
import org.apache.samza.task.InitableTask;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;
import org.apache.samza.task.WindowableTask;

/**
 * A Samza task in the shape of hello-samza's WikipediaStatsTask, written against Samza's API
 * alone: counts each edit's title in a store (all time) and, each window, sends the window's
 * edit count and byte total, keyed by the window's number.
 */
public final class WikipediaStatsTask implements StreamTask, InitableTask, WindowableTask {
  static final SystemStream OUTPUT = new SystemStream("kafka", "wikipedia-stats");
  private KeyValueStore<String, Integer> titles;
  private Counter edits;
  private int windowEdits;
  private int windowBytes;
  private int windows;

  @Override
  @SuppressWarnings("unchecked")
  public void init(Context context) {
    titles = (KeyValueStore<String, Integer>) context.getTaskContext().getStore("wikipedia-stats");
    edits = context.getTaskContext().getTaskMetricsRegistry().newCounter("wikipedia", "edits");
  }

  @Override
  @SuppressWarnings("unchecked")
  public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
      TaskCoordinator coordinator) {
    Map<String, Object> edit = (Map<String, Object>) envelope.getMessage();
    String title = (String) edit.get("title");
    Integer seen = titles.get(title);
    titles.put(title, seen == null ? 1 : seen + 1);
    windowEdits++;
    windowBytes += ((Number) edit.get("bytes")).intValue();
    edits.inc();
  }

  @Override
  public void window(MessageCollector collector, TaskCoordinator coordinator) {
    if (windowEdits == 0) {
      return;
    }
    Map<String, Object> stats = new HashMap<>();
    stats.put("edits", windowEdits);
    stats.put("bytes-added", windowBytes);
    stats.put("unique-titles", countTitles());
    collector.send(new OutgoingMessageEnvelope(OUTPUT, "window-" + windows++, stats));
    windowEdits = 0;
    windowBytes = 0;
  }

  private int countTitles() {
    int count = 0;
    var all = titles.all();
    try {
      while (all.hasNext()) {
        all.next();
        count++;
      }
    } finally {
      all.close();
    }
    return count;
  }
}
