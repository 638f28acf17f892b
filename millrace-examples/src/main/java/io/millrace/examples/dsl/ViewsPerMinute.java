package io.millrace.examples.dsl;

import io.millrace.api.store.KeyValue;
import io.millrace.dsl.Source;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.window.Windows;
import java.time.Duration;
import java.time.Instant;

/**
 * Page views per user per minute of event time, in the DSL: each line of the input is
 * {@code user,epochMillis,page}; a view up to 5 s out of order is on time, and a minute takes
 * views until 10 s after its end. Its count is written once, when the minute closes, as
 * {@code user minute<TAB>count}; views later than that go to {@code late}.
 */
public final class ViewsPerMinute implements StreamApplication {
  @Override
  public void describe(StreamGraph graph) {
    graph.stream(Source.<String, String>of("views")
            .withTimestamps((user, timeAndPage, recordTime) ->
                Long.parseLong(timeAndPage.substring(0, timeAndPage.indexOf(','))))
            .withMaxOutOfOrder(Duration.ofSeconds(5)))
        .groupByKey()
        .windowedBy(Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ofSeconds(10)))
        .lateRecordsTo("late")
        .count(Stored.as("views-per-minute"))
        .map((window, count) -> new KeyValue<>(
            window.key() + " " + Instant.ofEpochMilli(window.start()), count.toString()))
        .to("counts");
  }
}
