package io.millrace.examples.dsl;

import io.millrace.api.store.KeyValue;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import java.util.Arrays;

/**
 * The word count in the DSL: the words of each line counted in a store named
 * {@code word-counts}. The words are new keys, so the count repartitions first, through the
 * stream {@code word-counts-repartition}; every update of a count is written to {@code counts}.
 */
public final class WordCount implements StreamApplication {
  @Override
  public void describe(StreamGraph graph) {
    graph.<String, String>stream("lines")
        .flatMap((k, line) -> Arrays.stream(line.toLowerCase().split("\\W+"))
            .filter(w -> !w.isEmpty()).map(w -> new KeyValue<>(w, w)).toList())
        .groupByKey()
        .count(Stored.as("word-counts"))
        .to("counts");
  }
}
