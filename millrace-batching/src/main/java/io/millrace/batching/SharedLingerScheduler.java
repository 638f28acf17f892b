package io.millrace.batching;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** Holds the shared scheduler, created when {@link LingerScheduler#shared()} is first called. */
final class SharedLingerScheduler {
  static final LingerScheduler INSTANCE = LingerScheduler.of(newExecutor());

  private SharedLingerScheduler() {}

  private static ScheduledExecutorService newExecutor() {
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread thread = new Thread(task, "millrace-batcher-linger");
              thread.setDaemon(true);
              return thread;
            });
    // Most timers are cancelled (their batch filled first): drop them at once, not when due.
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }
}
