package io.millrace.dsl;

import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import io.millrace.dsl.plan.StoreDef;
import io.millrace.dsl.time.TimestampExtractor;

/**
 * Where an application describes its pipeline: {@link #stream} gives the records of an input
 * stream, whose operators make the rest. One graph per description; not thread-safe.
 */
public final class StreamGraph {
  private final Plan plan = new Plan();
  private long maxOutOfOrderMs;

  /**
   * The records of an input stream of the job, read with its own serdes and timestamps.
   *
   * @param streamId the stream's id in the job's properties ({@code streams.<id>.system}, ...)
   */
  public <K, V> MessageStream<K, V> stream(String streamId) {
    return stream(Source.of(streamId));
  }

  /** The records of an input stream, read as {@code source} says. */
  @SuppressWarnings("unchecked")
  public <K, V> MessageStream<K, V> stream(Source<K, V> source) {
    TimestampExtractor<Object, Object> extractor = source.extractor == null ? null
        : (k, v, ts) -> source.extractor.extract((K) k, (V) v, ts);
    Node node = plan.source(new Op.Source(source.streamId, source.keySerde, source.valueSerde,
        extractor, source.maxOutOfOrderMs, false));
    maxOutOfOrderMs = Math.max(maxOutOfOrderMs, source.maxOutOfOrderMs);
    return new MessageStream<>(this, node);
  }

  /**
   * A table of an input stream (a compacted topic, say) in a store you name: each key's latest
   * value, a record with a null value deleting its key. The store's serdes are the source's
   * unless {@code stored} gives them.
   */
  public <K, V> Table<K, V> table(String streamId, Stored<K, V> stored) {
    return table(Source.of(streamId), stored);
  }

  /** As {@link #table(String, Stored)}, the stream read as {@code source} says. */
  public <K, V> Table<K, V> table(Source<K, V> source, Stored<K, V> stored) {
    MessageStream<K, V> stream = stream(source);
    String where = "table of " + source.streamId;
    StoreDef store = GroupedStream.storeOf(where, "table", stored, source.keySerde,
        source.valueSerde);
    Node table = plan.add(new Op.Table(store), stream.node.path() + "/table:" + store.name(),
        false, stream.node);
    return new Table<>(this, table, store);
  }

  /** The pipeline described so far, as data: for the translator and the runtime. */
  public Plan plan() {
    return plan;
  }

  /**
   * The out-of-orderness of a repartition's records: the largest of the sources', since its
   * partitions mix the records of every upstream task.
   */
  long maxOutOfOrderMs() {
    return maxOutOfOrderMs;
  }
}
