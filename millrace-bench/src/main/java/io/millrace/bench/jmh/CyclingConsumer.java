package io.millrace.bench.jmh;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;

/**
 * A consumer that never runs dry: every poll hands each asked-for partition the same preallocated
 * run of envelopes. It allocates nothing, so whatever a benchmark measures is the runtime's own.
 */
final class CyclingConsumer implements SystemConsumer {
  private final Envelope[][] runs;

  CyclingConsumer(int partitions, int runLength) {
    runs = new Envelope[partitions][runLength];
    byte[] value = new byte[100];
    for (int p = 0; p < partitions; p++) {
      for (int i = 0; i < runLength; i++) {
        runs[p][i] = new Envelope("events", p, i, "key-" + (i % 1000), value, -1, 110);
      }
    }
  }

  @Override
  public void register(int index, StreamSpec stream, int partition, StartPosition start) {}

  @Override
  public void start() {}

  @Override
  public int poll(int[] indices, int count, int maxMessages, BatchSink sink, long timeoutMillis) {
    int handed = 0;
    for (int i = 0; i < count; i++) {
      Envelope[] run = runs[indices[i]];
      int n = Math.min(maxMessages, run.length);
      sink.accept(indices[i], run, 0, n);
      handed += n;
    }
    return handed;
  }

  @Override
  public void stop() {}
}
