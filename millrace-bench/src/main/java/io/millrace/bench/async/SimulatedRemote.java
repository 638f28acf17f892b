package io.millrace.bench.async;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A remote service whose calls are completed by a timer thread after their latency: no thread is
 * blocked while a call is "on the wire", as with an asynchronous network client.
 */
final class SimulatedRemote {
  static final ScheduledThreadPoolExecutor TIMER = new ScheduledThreadPoolExecutor(1, r -> {
    Thread thread = new Thread(r, "simulated-remote-timer");
    thread.setDaemon(true);
    return thread;
  });

  private SimulatedRemote() {}

  /** Runs {@code done} after {@code micros} microseconds, on the timer thread. */
  static void after(long micros, Runnable done) {
    TIMER.schedule(done, micros, TimeUnit.MICROSECONDS);
  }
}
