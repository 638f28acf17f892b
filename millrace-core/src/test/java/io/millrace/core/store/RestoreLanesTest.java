package io.millrace.core.store;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.spi.engine.StorageEngine;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Parallel application of restored batches: order per instance, completion, failures. */
class RestoreLanesTest {
  private static byte[] bytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  /** An engine that checks its batches arrive in the order they were queued. */
  private static final class OrderCheckingEngine extends WatchedEngine {
    long lastSeen = -1;
    volatile boolean outOfOrder;
    final Thread[] writer = new Thread[1];

    @Override
    public void write(List<byte[]> keys, List<byte[]> values) {
      long seq = ByteBuffer.wrap(values.get(0)).getLong();
      if (seq != lastSeen + 1) {
        outOfOrder = true;
      }
      lastSeen = seq;
      if (writer[0] == null) {
        writer[0] = Thread.currentThread();
      } else if (writer[0] != Thread.currentThread()) {
        outOfOrder = true; // an instance must stay on one lane
      }
      super.write(keys, values);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void everyInstanceGetsEveryBatchInOrderWhileLanesRunAtOnce() throws Exception {
    int instances = 13;
    int lanes = 4;
    int batches = 5_000;
    OrderCheckingEngine[] engines = new OrderCheckingEngine[instances];
    for (int i = 0; i < instances; i++) {
      engines[i] = new OrderCheckingEngine();
    }
    try (RestoreLanes restore = new RestoreLanes(lanes, "test-restore")) {
      for (int b = 0; b < batches; b++) {
        for (int i = 0; i < instances; i++) {
          List<byte[]> keys = new ArrayList<>();
          List<byte[]> values = new ArrayList<>();
          for (int k = 0; k < 3; k++) {
            keys.add(bytes(b * 3L + k));
            values.add(bytes(b));
          }
          restore.apply(i % lanes, engines[i], keys, values);
        }
      }
      restore.finish();
    }
    for (OrderCheckingEngine engine : engines) {
      assertThat(engine.outOfOrder).isFalse();
      assertThat(engine.lastSeen).isEqualTo(batches - 1);
      assertThat(engine.get(bytes(batches * 3L - 1))).isEqualTo(bytes(batches - 1));
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aFailingEngineFailsTheRestoreWithItsErrorAndNeverBlocksTheCaller() throws Exception {
    StorageEngine broken = new WatchedEngine() {
      @Override
      public void write(List<byte[]> keys, List<byte[]> values) {
        throw new IllegalStateException("store counts: RocksDB write failed in /tmp/x");
      }
    };
    MemoryEngine healthy = new MemoryEngine();
    RestoreLanes restore = new RestoreLanes(2, "test-restore");
    try {
      assertThatThrownBy(() -> {
        // Far more batches than the queues hold: the failed lane must keep draining.
        for (int b = 0; b < 1_000; b++) {
          restore.apply(0, broken, List.of(bytes(b)), List.of(bytes(b)));
          restore.apply(1, healthy, List.of(bytes(b)), List.of(bytes(b)));
        }
        restore.finish();
      }).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("store counts: RocksDB write failed");
    } finally {
      restore.close();
    }
  }
}
