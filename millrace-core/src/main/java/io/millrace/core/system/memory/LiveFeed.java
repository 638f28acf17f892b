package io.millrace.core.system.memory;

import io.millrace.api.Envelope;
import io.millrace.batching.handoff.BatchedHandoff;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A fetch thread for generated streams in live mode: it creates messages while the job runs and
 * hands them to the loop through a {@link BatchedHandoff}, as a network consumer would. Paused
 * partitions (full buffers) get nothing until resumed.
 */
final class LiveFeed implements Runnable {
  /** One partition this feed generates. */
  record Target(int index, String streamId, int partition, GeneratorSpec spec, long startOffset) {}

  private final List<Target> targets;
  private final BatchedHandoff handoff;
  private final AtomicIntegerArray paused;
  private volatile boolean stopped;

  LiveFeed(List<Target> targets, BatchedHandoff handoff, AtomicIntegerArray paused) {
    this.targets = targets;
    this.handoff = handoff;
    this.paused = paused;
  }

  void stop() {
    stopped = true;
    handoff.close();
  }

  @Override
  public void run() {
    int n = targets.size();
    long[] next = new long[n];
    long[] end = new long[n];
    String[][] keys = new String[n][];
    byte[][][] payloads = new byte[n][][];
    for (int i = 0; i < n; i++) {
      Target t = targets.get(i);
      next[i] = t.startOffset();
      end[i] = t.spec().messagesOf(t.partition());
      keys[i] = t.spec().keyPool();
      payloads[i] = t.spec().payloadPool();
    }
    int remaining = n;
    boolean[] done = new boolean[n];
    while (remaining > 0 && !stopped) {
      boolean progressed = false;
      for (int i = 0; i < n; i++) {
        if (done[i] || paused.get(targets.get(i).index()) != 0) {
          continue;
        }
        Target t = targets.get(i);
        // A run of messages per partition per turn, like a network fetch of one partition.
        long stop = Math.min(end[i], next[i] + 256);
        for (long offset = next[i]; offset < stop; offset++) {
          long global = offset * t.spec().partitions() + t.partition();
          String key = keys[i][(int) (global % keys[i].length)];
          byte[] value = payloads[i][(int) (global & (payloads[i].length - 1))];
          if (!handoff.offer(t.index(), new Envelope(t.streamId(), t.partition(), offset, key,
              value, -1, value.length + key.length()))) {
            return;
          }
        }
        progressed |= stop > next[i];
        next[i] = stop;
        if (next[i] == end[i]) {
          done[i] = true;
          remaining--;
          handoff.endOfStream(t.index());
        }
      }
      handoff.flushLingering();
      if (!progressed) {
        handoff.flush(); // idle: let what is open go now
        LockSupport.parkNanos(50_000);
      }
    }
    handoff.flush();
  }
}
