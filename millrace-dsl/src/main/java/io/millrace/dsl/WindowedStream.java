package io.millrace.dsl;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.dsl.function.Aggregator;
import io.millrace.dsl.plan.Aggregation;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import io.millrace.dsl.plan.StoreDef;
import io.millrace.dsl.serde.LongSerde;
import io.millrace.dsl.window.Windowed;
import io.millrace.dsl.window.Windows;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

/**
 * Records grouped by key and in windows of event time, for an aggregate per key and window.
 * Each record is stored once, in its pane, however many windows it falls in; a window's final
 * result is passed on once, when the watermark passes its end plus the grace (the results wait
 * in the store, not on the heap). A record that comes after every window it falls in has closed
 * is late: it is counted ({@code <store>-late-records} in the task's metrics group {@code task-<n>}) and, with
 * {@link #lateRecordsTo}, sent to a stream of its own.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class WindowedStream<K, V> {
  private final GroupedStream<K, V> grouped;
  private final Windows windows;
  private final String lateStream;
  private final Serde<K> lateKeySerde;
  private final Serde<V> lateValueSerde;

  WindowedStream(GroupedStream<K, V> grouped, Windows windows, String lateStream,
      Serde<K> lateKeySerde, Serde<V> lateValueSerde) {
    this.grouped = grouped;
    this.windows = windows;
    this.lateStream = lateStream;
    this.lateKeySerde = lateKeySerde;
    this.lateValueSerde = lateValueSerde;
  }

  /**
   * Late records also go to this output stream of the job, as they came: keys written with the
   * store's key serde, values with the serde they came with where the pipeline knows it (a
   * source's or a repartition's stated serde, through operators that keep the value), unless
   * the job sets the stream's serdes itself.
   */
  public WindowedStream<K, V> lateRecordsTo(String streamId) {
    Plan.checkName(streamId, "the stream of late records");
    return new WindowedStream<>(grouped, windows, streamId, null, null);
  }

  /** Late records also go to this output stream of the job, with these serdes. */
  public WindowedStream<K, V> lateRecordsTo(String streamId, Serde<K> keySerde,
      Serde<V> valueSerde) {
    Plan.checkName(streamId, "the stream of late records");
    if (keySerde == null || valueSerde == null) {
      throw new IllegalArgumentException("lateRecordsTo(" + streamId + ", ...) needs both serdes");
    }
    return new WindowedStream<>(grouped, windows, streamId, keySerde, valueSerde);
  }

  /** The number of records per key and window. */
  public MessageStream<Windowed<K>, Long> count(Stored<K, Long> stored) {
    return aggregate("count", stored, new LongSerde(), Aggregation.count());
  }

  /** Each key's values in a window combined by {@code reducer}. */
  @SuppressWarnings("unchecked")
  public MessageStream<Windowed<K>, V> reduce(Stored<K, V> stored, BinaryOperator<V> reducer) {
    return aggregate("reduce", stored, null, new Aggregation(Aggregation.Kind.REDUCE, null,
        (k, v, a) -> reducer.apply((V) a, (V) v), (a, b) -> reducer.apply((V) a, (V) b)));
  }

  /**
   * Each key's records in a tumbling window folded into an aggregate. Hopping windows need
   * {@link #aggregate(Stored, Supplier, Aggregator, BinaryOperator)}: a window is made of several
   * panes, whose aggregates must be merged.
   */
  public <A> MessageStream<Windowed<K>, A> aggregate(Stored<K, A> stored, Supplier<A> initializer,
      Aggregator<? super K, ? super V, A> aggregator) {
    return aggregate(stored, initializer, aggregator, null);
  }

  /**
   * Each key's records in a window folded into an aggregate; {@code merger} combines the
   * aggregates of two panes of one window (the earlier first).
   */
  @SuppressWarnings("unchecked")
  public <A> MessageStream<Windowed<K>, A> aggregate(Stored<K, A> stored, Supplier<A> initializer,
      Aggregator<? super K, ? super V, A> aggregator, BinaryOperator<A> merger) {
    return aggregate("aggregate", stored, null, new Aggregation(Aggregation.Kind.AGGREGATE,
        initializer::get, (k, v, a) -> aggregator.apply((K) k, (V) v, (A) a),
        merger == null ? null : (a, b) -> merger.apply((A) a, (A) b)));
  }

  private <A> MessageStream<Windowed<K>, A> aggregate(String operator, Stored<K, A> stored,
      Serde<A> defaultValueSerde, Aggregation aggregation) {
    StoreDef store = grouped.store("windowed " + operator, stored, defaultValueSerde);
    if (aggregation.merger() == null && windows.session()) {
      throw new ConfigException("windowed aggregate (store " + store.name() + ") over " + windows
          + " needs a merger: a record that falls between two sessions merges them, and their "
          + "aggregates are merged");
    }
    if (aggregation.merger() == null && windows.sliding()) {
      throw new ConfigException("windowed aggregate (store " + store.name() + ") over " + windows
          + " needs a merger: each record is stored once, in its own instant's slice, and a "
          + "window's result merges the slices it holds");
    }
    if (aggregation.merger() == null && windows.paneMs() != windows.sizeMs()) {
      throw new ConfigException("windowed aggregate (store " + store.name() + ") over " + windows
          + " needs a merger: a window is made of " + windows.sizeMs() / windows.paneMs()
          + " panes, each record stored once, and their aggregates are merged when it closes");
    }
    Node upstream = grouped.upstream(store);
    boolean stated = lateKeySerde != null;
    Serde<?> lateKeys = stated ? lateKeySerde : store.keySerde();
    Serde<?> lateValues = stated ? lateValueSerde : Plan.valueSerdeAt(upstream);
    Node node = grouped.graph().plan().add(
        new Op.WindowAggregate(store, windows, aggregation, lateStream,
            lateStream == null ? null : lateKeys, lateStream == null ? null : lateValues, stated),
        upstream.path() + "/windowed-" + operator + ":" + store.name(), true, upstream);
    return new MessageStream<>(grouped.graph(), node);
  }
}
