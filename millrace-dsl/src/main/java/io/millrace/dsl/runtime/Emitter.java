package io.millrace.dsl.runtime;

import io.millrace.api.Collector;
import io.millrace.api.Headers;
import io.millrace.api.Output;

/**
 * Where a pipeline's sinks send: the collector of the call the task is in (a record, a tick, the
 * end of its inputs), set by the task at the start of each call. The loop thread only; the
 * operators after a {@code mapAsync} send through a {@link CallEmitter} instead.
 */
class Emitter {
  private Collector collector;

  void use(Collector collector) {
    this.collector = collector;
  }

  /** The collector to send through now. */
  Collector collector() {
    return collector;
  }

  final void send(Output output, Object key, Object value, long timestamp) {
    collector().send(output, -1, key, value, timestamp, Headers.EMPTY);
  }

  final void send(Output output, int partition, Object key, Object value, long timestamp,
      Headers headers) {
    collector().send(output, partition, key, value, timestamp, headers);
  }
}
