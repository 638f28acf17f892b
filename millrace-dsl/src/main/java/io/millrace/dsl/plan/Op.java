package io.millrace.dsl.plan;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.time.TimestampExtractor;
import io.millrace.dsl.window.Windows;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;

/**
 * What one node of a pipeline does: data only, with the user's functions. The runtime
 * ({@code io.millrace.dsl.runtime}) turns each into a processor per task. Functions are held with
 * their type parameters erased: the typed API ({@code MessageStream}) is where types are checked.
 */
public sealed interface Op {
  /** A short word for the operator, used in its path and in messages: {@code map}, ... */
  String kind();

  /**
   * Records of an input stream of the job.
   *
   * @param keySerde the key serde the runtime reads with, or null for the stream's own keys
   * @param valueSerde the value serde, or null
   * @param extractor the event time of a record, or null for the system's timestamp
   * @param intermediate a stream the job itself writes (a repartition)
   */
  record Source(String streamId, Serde<?> keySerde, Serde<?> valueSerde,
      TimestampExtractor<Object, Object> extractor, long maxOutOfOrderMs, boolean intermediate)
      implements Op {
    @Override
    public String kind() {
      return "source";
    }
  }

  /** A new key and value per record. */
  record Map(BiFunction<Object, Object, KeyValue<?, ?>> fn) implements Op {
    @Override
    public String kind() {
      return "map";
    }
  }

  /** A new value per record, the key kept. */
  record MapValues(BiFunction<Object, Object, Object> fn) implements Op {
    @Override
    public String kind() {
      return "mapValues";
    }
  }

  /** Only the records the predicate holds for. */
  record Filter(BiPredicate<Object, Object> predicate) implements Op {
    @Override
    public String kind() {
      return "filter";
    }
  }

  /** Zero or more records per record. */
  record FlatMap(BiFunction<Object, Object, Iterable<? extends KeyValue<?, ?>>> fn)
      implements Op {
    @Override
    public String kind() {
      return "flatMap";
    }
  }

  /** Each record seen, passed on unchanged. */
  record Peek(BiConsumer<Object, Object> action) implements Op {
    @Override
    public String kind() {
      return "peek";
    }
  }

  /** A new key per record, the value kept. */
  record SelectKey(BiFunction<Object, Object, Object> fn) implements Op {
    @Override
    public String kind() {
      return "selectKey";
    }
  }

  /** Each record to the first branch whose predicate holds (the node's children, in order). */
  record Split(List<BiPredicate<Object, Object>> predicates) implements Op {
    @Override
    public String kind() {
      return "split";
    }
  }

  /** Records passed on as they are: a branch of a split, or streams merged. */
  record Pass(String kind) implements Op {}

  /**
   * Records written to a stream of the job.
   *
   * @param keySerde the key serde the runtime writes with, or null for the stream's own
   * @param intermediate a repartition: the job reads the stream back
   */
  record Sink(String streamId, Serde<?> keySerde, Serde<?> valueSerde, boolean intermediate)
      implements Op {
    @Override
    public String kind() {
      return intermediate ? "repartition" : "to";
    }
  }

  /** A running aggregate per key in a store, each update passed on. */
  record Aggregate(StoreDef store, Aggregation aggregation) implements Op {
    @Override
    public String kind() {
      return aggregation.kind().word();
    }
  }

  /**
   * An aggregate per key and window, in a store of panes; a window's final result is passed on
   * when it closes.
   *
   * @param lateStream where records later than the grace go, or null (they are counted only)
   */
  record WindowAggregate(StoreDef store, Windows windows, Aggregation aggregation,
      String lateStream) implements Op {
    @Override
    public String kind() {
      return "windowed " + aggregation.kind().word();
    }
  }
}
