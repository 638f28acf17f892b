package io.millrace.core.loop;

import io.millrace.api.ClosableTask;
import io.millrace.api.Coordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.WindowableTask;
import io.millrace.core.output.TaskCollector;

/** One task of a container: the user's object, its collector and coordinator, and its state. */
public final class TaskInstance {
  final String name;
  final StreamTask task;
  final TaskCollector collector;
  final TaskContext context;
  final TaskCoordinator coordinator;
  final WindowableTask windowable;
  /** Input partitions of the task not yet finished. */
  int livePartitions;
  boolean endOfStreamCalled;
  boolean stopped;

  /**
   * Creates a task instance.
   *
   * @param partitions how many input partitions the task reads
   */
  public TaskInstance(
      String name, StreamTask task, TaskCollector collector, TaskContext context, int partitions) {
    this.name = name;
    this.task = task;
    this.collector = collector;
    this.context = context;
    this.coordinator = new TaskCoordinator();
    this.windowable = task instanceof WindowableTask w ? w : null;
    this.livePartitions = partitions;
  }

  /** The task's name. */
  public String name() {
    return name;
  }

  void init() throws Exception {
    if (task instanceof InitableTask initable) {
      initable.init(context);
    }
  }

  void endOfStream() throws Exception {
    if (!endOfStreamCalled) {
      endOfStreamCalled = true;
      if (task instanceof EndOfStreamListener listener) {
        listener.onEndOfStream(collector, coordinator);
      }
    }
  }

  void close() throws Exception {
    if (task instanceof ClosableTask closable) {
      closable.close();
    }
  }

  /**
   * The task's coordinator: requests are plain fields read by the loop after each delivery, on the
   * same thread, so asking costs no synchronisation.
   */
  static final class TaskCoordinator implements Coordinator {
    Scope commit;
    Scope shutdown;
    boolean any;

    @Override
    public void commit(Scope scope) {
      if (commit == null || scope == Scope.CONTAINER) {
        commit = scope;
      }
      any = true;
    }

    @Override
    public void shutdown(Scope scope) {
      if (shutdown == null || scope == Scope.CONTAINER) {
        shutdown = scope;
      }
      any = true;
    }

    void clear() {
      commit = null;
      shutdown = null;
      any = false;
    }
  }
}
