package io.millrace.bench.async;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A simulated remote service with a fixed number of connections: a call takes
 * {@code fixed + perItem x items} microseconds and holds one connection meanwhile; calls beyond the
 * connections wait in order. No thread blocks: the simulated-remote timer completes calls.
 * This is what makes batching pay: the service's fixed cost per call is its bottleneck.
 */
final class SlottedService {
  private final long fixedMicros;
  private final long perItemMicros;
  private final ArrayDeque<Call> waiting = new ArrayDeque<>();
  private int free;

  private record Call(int items, Runnable done) {}

  SlottedService(int connections, long fixedMicros, long perItemMicros) {
    this.free = connections;
    this.fixedMicros = fixedMicros;
    this.perItemMicros = perItemMicros;
  }

  /** Calls the service for {@code items} items; {@code done} runs when the call returns. */
  void call(int items, Runnable done) {
    Call call = new Call(items, done);
    synchronized (this) {
      if (free == 0) {
        waiting.add(call);
        return;
      }
      free--;
    }
    start(call);
  }

  private void start(Call call) {
    SimulatedRemote.TIMER.schedule(() -> {
      call.done().run();
      Call next;
      synchronized (this) {
        next = waiting.poll();
        if (next == null) {
          free++;
        }
      }
      if (next != null) {
        start(next);
      }
    }, fixedMicros + perItemMicros * call.items(), TimeUnit.MICROSECONDS);
  }
}
