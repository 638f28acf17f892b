package io.millrace.samza.context;

import io.millrace.api.Cancellable;
import io.millrace.api.Collector;
import io.millrace.api.TaskContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.samza.scheduler.CallbackScheduler;
import org.apache.samza.scheduler.ScheduledCallback;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.TaskCoordinator;

/**
 * Samza's {@link CallbackScheduler} over Millrace's {@link TaskContext#schedule}: Samza gives the
 * epoch time a callback is due, Millrace the delay from now; a key scheduled again replaces its
 * callback, as on Samza. The callback runs on the task's loop thread between messages.
 *
 * <p>Threading: any thread. An async task may schedule from its own threads, as on Samza: the
 * request goes to the container's timers, which the loop reads every cycle, and the callback runs
 * on the loop thread. The keys' bookkeeping is shared by those threads and the loop (a callback
 * that ran forgets its key), hence the lock.
 */
final class SamzaCallbackScheduler implements CallbackScheduler {
  private final TaskContext context;
  private final Function<Collector, MessageCollector> collectors;
  private final Function<io.millrace.api.TaskCoordinator, TaskCoordinator> coordinators;
  private final Map<Object, Cancellable> scheduled = new HashMap<>();

  SamzaCallbackScheduler(TaskContext context, Function<Collector, MessageCollector> collectors,
      Function<io.millrace.api.TaskCoordinator, TaskCoordinator> coordinators) {
    this.context = context;
    this.collectors = collectors;
    this.coordinators = coordinators;
  }

  @Override
  public <K> void scheduleCallback(K key, long timestamp, ScheduledCallback<K> callback) {
    long delay = Math.max(0, timestamp - System.currentTimeMillis());
    Cancellable[] self = new Cancellable[1];
    synchronized (scheduled) { // (the callback cannot forget its key before it is recorded)
      self[0] = context.schedule(Duration.ofMillis(delay), (out, coordinator) -> {
        synchronized (scheduled) {
          scheduled.remove(key, self[0]);
        }
        callback.onCallback(key, collectors.apply(out), coordinators.apply(coordinator));
      });
      Cancellable previous = scheduled.put(key, self[0]);
      if (previous != null) {
        previous.cancel();
      }
    }
  }

  @Override
  public <K> void deleteCallback(K key) {
    synchronized (scheduled) {
      Cancellable cancellable = scheduled.remove(key);
      if (cancellable != null) {
        cancellable.cancel();
      }
    }
  }
}
