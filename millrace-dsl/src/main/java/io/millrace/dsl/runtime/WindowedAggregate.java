package io.millrace.dsl.runtime;

import io.millrace.api.Output;
import io.millrace.api.Serde;
import io.millrace.api.metrics.Counter;
import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.plan.Aggregation;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.window.Windows;
import java.util.function.LongSupplier;

/**
 * What every windowed aggregation holds (tumbling and hopping, sliding, session): its operator, its
 * windows and aggregation, the store it buffers in with the serdes of its keys and values, the
 * watermark it is moved to, where its results and late records go. The kinds differ only in how
 * they lay records out in the store and when a window closes.
 */
abstract class WindowedAggregate implements Processor, WatermarkListener {
  final Node node;
  final Windows windows;
  final Aggregation aggregation;
  final KeyValueStore<byte[], byte[]> store;
  final Serde<Object> keySerde;
  final Serde<Object> valueSerde;
  /** The watermark it was last moved to: its partitions', less what is held before it. */
  final LongSupplier watermark;
  final Processor[] children;
  final Emitter emitter;
  private final Output lateOutput;
  private final Counter late;
  /** Where a close's deletions and progress wait for its results to be acknowledged. */
  final HeldWrites held;

  /** What a windowed aggregation is made of, gathered where the pipeline is built. */
  record Parts(Node node, Windows windows, Aggregation aggregation,
      KeyValueStore<byte[], byte[]> store, Serde<Object> keySerde, Serde<Object> valueSerde,
      LongSupplier watermark, Processor[] children, Emitter emitter, Output lateOutput,
      Counter late, HeldWrites held) {}

  WindowedAggregate(Parts parts) {
    this.node = parts.node();
    this.windows = parts.windows();
    this.aggregation = parts.aggregation();
    this.store = parts.store();
    this.keySerde = parts.keySerde();
    this.valueSerde = parts.valueSerde();
    this.watermark = parts.watermark();
    this.children = parts.children();
    this.emitter = parts.emitter();
    this.lateOutput = parts.lateOutput();
    this.late = parts.late();
    this.held = parts.held();
  }

  /** A record too late for its windows: counted, and sent to the side output if there is one. */
  final void lateRecord(Object key, Object value, long timestamp) {
    late.inc();
    if (lateOutput != null) {
      emitter.send(lateOutput, key, value, timestamp);
    }
  }
}
