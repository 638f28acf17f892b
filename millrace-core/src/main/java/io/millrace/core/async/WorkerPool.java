package io.millrace.core.async;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads a container runs blocking synchronous tasks on ({@code job.container.thread.pool.size}).
 * On Java 21+ they may be virtual threads ({@code job.container.thread.pool.virtual=true}); on 17
 * that falls back to platform threads with a log line.
 */
public final class WorkerPool {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);

  private WorkerPool() {}

  /** Creates the pool of a container. */
  public static ExecutorService create(int containerId, int size, boolean virtual) {
    if (virtual) {
      try {
        Method factory = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
        return (ExecutorService) factory.invoke(null);
      } catch (ReflectiveOperationException e) {
        LOG.info("job.container.thread.pool.virtual=true needs Java 21+ (this is {}): using {} "
            + "platform threads", Runtime.version().feature(), size);
      }
    }
    AtomicInteger next = new AtomicInteger();
    return Executors.newFixedThreadPool(size, r -> {
      Thread thread = new Thread(r, "millrace-container-" + containerId + "-worker-"
          + next.getAndIncrement());
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Stops a pool, waiting briefly for running work. */
  public static void shutdown(ExecutorService pool) {
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
