package io.millrace.dsl;

import io.millrace.api.Serde;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import io.millrace.dsl.plan.StoreDef;
import io.millrace.dsl.time.TimestampExtractor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where an application describes its pipeline: {@link #stream} gives the records of an input
 * stream, whose operators make the rest. One graph per description; not thread-safe.
 */
public final class StreamGraph {
  private final Plan plan = new Plan();
  /** The intermediate streams made so far, per operator whose records they carry. */
  private final Map<Node, List<Repartition>> repartitions = new IdentityHashMap<>();
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

  /**
   * The records of {@code node} through the intermediate stream {@code streamId}, written keyed by
   * their key and read back by the same job, so that each key's records are in the partition its
   * key chooses. The first operator to repartition {@code node} names the stream; a later one
   * whose serdes write alike reads that same stream (one topic, each record written once:
   * Kafka Streams shares them only under its optimizer flag, KAFKA-6761).
   */
  Node repartition(Node node, String streamId, Serde<?> keySerde, Serde<?> valueSerde) {
    List<Repartition> made = repartitions.computeIfAbsent(node, n -> new ArrayList<>());
    for (Repartition r : made) {
      if (writeAlike(r.keySerde(), keySerde) && writeAlike(r.valueSerde(), valueSerde)) {
        return r.source();
      }
    }
    plan.add(new Op.Sink(streamId, keySerde, valueSerde, true),
        node.path() + "/repartition:" + streamId, true, node);
    Node source = plan.source(new Op.Source(streamId, keySerde, valueSerde, null,
        maxOutOfOrderMs, true));
    made.add(new Repartition(source, keySerde, valueSerde));
    return source;
  }

  /**
   * Whether two serdes write every value to the same bytes: the same one, equal ones, or two of
   * one class that holds nothing of its own ({@code new StringSerde()} twice). Both absent
   * counts (the embedded default's memory streams keep objects).
   */
  static boolean writeAlike(Serde<?> a, Serde<?> b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null || a.getClass() != b.getClass()) {
      return false;
    }
    if (a.equals(b)) {
      return true;
    }
    for (Class<?> c = a.getClass(); c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (!Modifier.isStatic(field.getModifiers())) {
          return false;
        }
      }
    }
    return true;
  }

  private record Repartition(Node source, Serde<?> keySerde, Serde<?> valueSerde) {}

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
