package io.millrace.dsl.plan;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.function.Aggregator;
import io.millrace.dsl.function.ValueJoiner;
import io.millrace.dsl.time.TimestampExtractor;
import io.millrace.dsl.window.JoinWindows;
import io.millrace.dsl.window.Windows;
import java.util.List;
import java.util.concurrent.CompletionStage;
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

  /** The stores the operator keeps its state in (none for a stateless one). */
  default List<StoreDef> stores() {
    return List.of();
  }

  /**
   * The user's name of a stateful operator (its store's, its join's), or null: the streams it
   * reads by key must be co-partitioned, a group the job checks under this name.
   */
  default String group() {
    return null;
  }

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

  /**
   * A table's rows' values through {@code fn} on their way into another table ({@code filter},
   * {@code mapValues} of a table): a null out of it deletes the row there.
   *
   * @param kind {@code table filter} or {@code table mapValues}
   */
  record TableValues(String kind, BiFunction<Object, Object, Object> fn) implements Op {}

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

  /**
   * A new value per record from a call that completes later (a remote look-up), the key kept;
   * at most {@code maxInFlight} calls of the task at once, one at a time per key.
   */
  record MapAsync(BiFunction<Object, Object, CompletionStage<?>> fn, int maxInFlight)
      implements Op {
    @Override
    public String kind() {
      return "mapAsync";
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

    @Override
    public List<StoreDef> stores() {
      return List.of(store);
    }

    @Override
    public String group() {
      return store.name();
    }
  }

  /**
   * An aggregate per key and window, in a store of panes; a window's final result is passed on
   * when it closes.
   *
   * @param lateStream where records later than the grace go, or null (they are counted only)
   * @param lateKeySerde the key serde of the late stream's records: the one the user gave, or
   *     the store's (every key the operator takes is written with it)
   * @param lateValueSerde their value serde: the one the user gave, or the one the records
   *     came with where the pipeline knows it (a source's, a repartition's), or null
   * @param lateSerdesStated whether the user gave the late stream's serdes (then the job may not
   *     contradict them; found ones only fill in what the job leaves out)
   */
  record WindowAggregate(StoreDef store, Windows windows, Aggregation aggregation,
      String lateStream, Serde<?> lateKeySerde, Serde<?> lateValueSerde,
      boolean lateSerdesStated) implements Op {
    @Override
    public String kind() {
      return "windowed " + aggregation.kind().word();
    }

    @Override
    public List<StoreDef> stores() {
      return List.of(store);
    }

    @Override
    public String group() {
      return store.name();
    }
  }

  /**
   * A table: each record's value becomes its key's in the store (a null value deletes the key),
   * and each change is passed on.
   */
  record Table(StoreDef store) implements Op {
    @Override
    public String kind() {
      return "table";
    }

    @Override
    public List<StoreDef> stores() {
      return List.of(store);
    }

    @Override
    public String group() {
      return store.name();
    }
  }

  /**
   * A table's changes re-grouped by a new key: the table's operator tells it each key's old
   * value before a change, and the old value's (group key, value) pair is subtracted from its
   * group and the new one's added, sent on as changes ({@code runtime.TableChanges}) through a
   * repartition to a {@link TableAggregate}.
   *
   * @param groupKeySerde the group key's serde
   * @param groupValueSerde the selected value's serde
   */
  record TableGroupBy(BiFunction<Object, Object, KeyValue<?, ?>> selector,
      Serde<?> groupKeySerde, Serde<?> groupValueSerde) implements Op {
    @Override
    public String kind() {
      return "table groupBy";
    }
  }

  /**
   * A running aggregate per key of a re-grouped table's changes: an added value folds in with
   * the aggregation, a subtracted one out with {@code subtractor}; each update is passed on.
   *
   * @param valueSerde the serde the changes' values were encoded with
   */
  record TableAggregate(StoreDef store, Aggregation aggregation,
      Aggregator<Object, Object, Object> subtractor, Serde<?> valueSerde) implements Op {
    @Override
    public String kind() {
      return "table " + aggregation.kind().word();
    }

    @Override
    public List<StoreDef> stores() {
      return List.of(store);
    }

    @Override
    public String group() {
      return store.name();
    }
  }

  /**
   * Each record of a stream joined with its key's current value in a table's store.
   *
   * @param tableStore the table's store, read, never written
   */
  record StreamTableJoin(String name, String tableStore, JoinKind joinKind,
      ValueJoiner<Object, Object, Object> joiner) implements Op {
    @Override
    public String kind() {
      return "stream-table " + joinKind.word();
    }

    @Override
    public String group() {
      return name;
    }
  }

  /**
   * Two tables joined by key into a third, in {@code store}: a change of either side changes the
   * result's key (a null result deletes it), and each change of the result is passed on.
   */
  record TableTableJoin(StoreDef store, String leftStore, String rightStore, JoinKind joinKind,
      ValueJoiner<Object, Object, Object> joiner) implements Op {
    @Override
    public String kind() {
      return "table-table " + joinKind.word();
    }

    @Override
    public List<StoreDef> stores() {
      return List.of(store);
    }

    @Override
    public String group() {
      return store.name();
    }
  }

  /**
   * Two streams joined by key within a join window, each side's records buffered in its own store
   * until their windows close.
   *
   */
  record StreamStreamJoin(String name, StoreDef left, StoreDef right, JoinWindows windows,
      JoinKind joinKind, ValueJoiner<Object, Object, Object> joiner) implements Op {
    @Override
    public String kind() {
      return "windowed " + joinKind.word();
    }

    @Override
    public List<StoreDef> stores() {
      return List.of(left, right);
    }

    @Override
    public String group() {
      return name;
    }
  }

  /** Where one side's records enter a join of two inputs (its only child is the join). */
  record JoinSide(boolean left) implements Op {
    @Override
    public String kind() {
      return left ? "left side" : "right side";
    }
  }
}
