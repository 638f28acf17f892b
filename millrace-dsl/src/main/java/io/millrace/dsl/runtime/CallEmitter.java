package io.millrace.dsl.runtime;

import io.millrace.api.Collector;

/**
 * The emitter of the operators after a {@code mapAsync}: they run on the thread that completes
 * the call, each call with the collector of its own input record (which the async runtime takes
 * from any thread until the record is done), so the collector is the thread's, set around the
 * run.
 */
final class CallEmitter extends Emitter {
  private final ThreadLocal<Collector> current = new ThreadLocal<>();

  /** Runs {@code work} with the sends of this thread going to {@code collector}. */
  void run(Collector collector, Runnable work) {
    Collector before = current.get();
    current.set(collector);
    try {
      work.run();
    } finally {
      current.set(before);
    }
  }

  @Override
  void use(Collector collector) {
    throw new IllegalStateException("the operators after a mapAsync send with their record's "
        + "collector, set by run()");
  }

  @Override
  Collector collector() {
    return current.get();
  }
}
