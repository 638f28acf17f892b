package io.millrace.bench.dsl;

import io.millrace.api.Collector;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.InitableTask;
import io.millrace.api.Output;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.serde.LongSerde;
import io.millrace.dsl.serde.StringSerde;
import io.millrace.dsl.window.Windowed;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link BenchApps.WindowedCount} written by hand as a user would: the same store (its bytes
 * keyed {@code <window start><key>} as the DSL's panes, values the DSL's long serde), the same
 * serdes, a watermark that is the latest timestamp seen, and each window's counts sent when the
 * watermark reaches its end (grace 0), its entries then deleted and its progress stored, as
 * the DSL does.
 */
public final class WindowedCountTask implements StreamTask, InitableTask, EndOfStreamListener {
  private static final byte[] PROGRESS = new byte[0];
  private final StringSerde keySerde = new StringSerde();
  private final LongSerde valueSerde = new LongSerde();
  private KeyValueStore<byte[], byte[]> store;
  private Output out;
  private long watermark = Long.MIN_VALUE;
  /** The start of the earliest window not sent yet; MIN_VALUE before the first record. */
  private long nextStart = Long.MIN_VALUE;

  @Override
  public void init(TaskContext context) {
    store = context.store("counts");
    out = context.output("out");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    long timestamp = envelope.timestamp();
    long start = Math.floorDiv(timestamp, BenchApps.WINDOW_MS) * BenchApps.WINDOW_MS;
    if (nextStart == Long.MIN_VALUE) {
      nextStart = start;
    } else if (start < nextStart) {
      return; // late: its window was sent
    }
    byte[] key = paneKey(start, keySerde.toBytes((String) envelope.key()));
    byte[] current = store.get(key);
    store.put(key, valueSerde.toBytes(current == null ? 1L : valueSerde.fromBytes(current) + 1));
    watermark = Math.max(watermark, timestamp);
    while (nextStart + BenchApps.WINDOW_MS <= watermark) {
      close(collector);
    }
  }

  @Override
  public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
    watermark = Long.MAX_VALUE;
    while (nextStart != Long.MIN_VALUE && hasPanes()) {
      close(collector);
    }
  }

  private boolean hasPanes() {
    try (KeyValueIterator<byte[], byte[]> it = store.range(paneKey(nextStart, new byte[0]),
        paneKey(Long.MAX_VALUE, new byte[0]))) {
      return it.hasNext();
    }
  }

  /** Sends the window starting at {@code nextStart}, deletes its entries, moves on. */
  private void close(Collector collector) {
    long start = nextStart;
    long end = start + BenchApps.WINDOW_MS;
    List<byte[]> sent = new ArrayList<>();
    try (KeyValueIterator<byte[], byte[]> it = store.range(paneKey(start, new byte[0]),
        paneKey(end, new byte[0]))) {
      while (it.hasNext()) {
        KeyValue<byte[], byte[]> entry = it.next();
        byte[] paneKey = entry.key();
        String key = keySerde.fromBytes(java.util.Arrays.copyOfRange(paneKey, Long.BYTES,
            paneKey.length));
        collector.send(out, -1, new Windowed<>(key, start, end),
            valueSerde.fromBytes(entry.value()), end - 1, Headers.EMPTY);
        sent.add(paneKey);
      }
    }
    for (byte[] key : sent) {
      store.delete(key);
    }
    nextStart = end;
    store.put(PROGRESS, valueSerde.toBytes(nextStart));
  }

  /** The DSL's pane key: the start big-endian with its sign bit flipped, then the key. */
  private static byte[] paneKey(long start, byte[] recordKey) {
    byte[] key = new byte[Long.BYTES + recordKey.length];
    long v = start ^ Long.MIN_VALUE;
    for (int i = Long.BYTES - 1; i >= 0; i--) {
      key[i] = (byte) v;
      v >>>= 8;
    }
    System.arraycopy(recordKey, 0, key, Long.BYTES, recordKey.length);
    return key;
  }
}
