package io.millrace.core.loop;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.ClosableTask;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.WindowableTask;
import io.millrace.core.output.TaskCollector;

/** One task of a container: the user's object, its collector and coordinator, and its state. */
public final class TaskInstance {
  final String name;
  /** The synchronous task, or null. */
  final StreamTask task;
  /** The asynchronous task, or null. */
  final AsyncStreamTask asyncTask;
  /** The user's object, whichever kind it is, for the optional life-cycle interfaces. */
  private final Object userTask;
  final TaskCollector collector;
  final TaskContext context;
  final Requests coordinator;
  final TaskScheduler scheduler;
  final WindowableTask windowable;
  /** What the task asked to run when the loop goes idle (filled during init). */
  final java.util.List<Runnable> idleActions;
  /** The task's number: the partition number of its inputs (task k reads partition k of each). */
  final int number;
  /** The task's input partitions in its container, set when the container takes the task. */
  PartitionState[] partitions = new PartitionState[0];
  /** Input partitions of the task not yet finished. */
  int livePartitions;
  boolean endOfStreamCalled;
  boolean stopped;
  /**
   * Being revoked: its partitions are no longer delivered, and its calls outside a message
   * (window, scheduled callbacks, idle actions) no longer run, so nothing of it is sent after the
   * commit that covers its last offsets. Loop thread.
   */
  boolean leaving;
  /**
   * Left the container: a completion of one of its messages that comes later is ignored, and a
   * worker thread that has not started one of its messages yet does not start it. Volatile: the
   * workers read it (see {@link #running}).
   */
  volatile boolean revoked;
  /**
   * Worker threads inside the task's {@code process} now. A worker counts itself in, then reads
   * {@link #revoked}; the loop sets {@code revoked}, then waits for this to reach 0 before it
   * closes the task: one of the two always sees the other, so no worker runs a closed task.
   */
  final java.util.concurrent.atomic.AtomicInteger running =
      new java.util.concurrent.atomic.AtomicInteger();
  /** Its messages handed out and not yet below their partitions' watermarks (dispatcher). */
  int outstanding;

  // Asynchronous delivery (AsyncDispatcher).
  /** Messages in flight (handed to the task, not completed). */
  int inFlight;
  /** Messages held back behind a busy key. */
  int parked;
  /** At its concurrency or look-ahead limit: its partitions are not chosen. */
  boolean blocked;
  /** Under key ordering: the messages waiting for each busy key; null otherwise. */
  java.util.Map<Object, java.util.ArrayDeque<PendingMessage>> busyKeys;

  /**
   * Creates a task instance.
   *
   * @param task a {@link StreamTask} or an {@link AsyncStreamTask}
   * @param partitions how many input partitions the task reads
   */
  public TaskInstance(
      String name, Object task, TaskCollector collector, TaskContext context, int partitions) {
    this(name, -1, task, collector, context, partitions, java.util.List.of());
  }

  /**
   * Creates a task instance with the actions it registered through
   * {@link TaskContext#whenIdle}.
   */
  public TaskInstance(String name, int number, Object task, TaskCollector collector,
      TaskContext context, int partitions, java.util.List<Runnable> idleActions) {
    this(name, number, task, collector, context, partitions, idleActions, new TaskScheduler());
  }

  /**
   * Creates a task instance with its idle actions and the scheduler its context schedules
   * callbacks through ({@link TaskContext#schedule}).
   */
  public TaskInstance(String name, int number, Object task, TaskCollector collector,
      TaskContext context, int partitions, java.util.List<Runnable> idleActions,
      TaskScheduler scheduler) {
    this.scheduler = scheduler;
    this.idleActions = idleActions;
    this.name = name;
    this.number = number;
    this.task = task instanceof StreamTask sync ? sync : null;
    this.asyncTask = task instanceof AsyncStreamTask async ? async : null;
    this.userTask = task;
    if (this.task == null && this.asyncTask == null) {
      throw new IllegalArgumentException(task.getClass().getName()
          + " is neither a StreamTask nor an AsyncStreamTask");
    }
    this.collector = collector;
    this.context = context;
    this.coordinator = new Requests();
    this.windowable = task instanceof WindowableTask w ? w : null;
    this.livePartitions = partitions;
  }

  /** The task's name. */
  public String name() {
    return name;
  }

  /** The task's number (its input partition number), or -1 if it was built without one. */
  public int number() {
    return number;
  }

  /** The task's input partitions in its container. */
  public java.util.List<PartitionState> partitions() {
    return java.util.List.of(partitions);
  }

  void init() throws Exception {
    if (userTask instanceof InitableTask initable) {
      initable.init(context);
    }
  }

  void endOfStream() throws Exception {
    if (!endOfStreamCalled) {
      endOfStreamCalled = true;
      if (userTask instanceof EndOfStreamListener listener) {
        collector.outsideMessage();
        listener.onEndOfStream(collector, coordinator);
      }
    }
  }

  void close() throws Exception {
    if (userTask instanceof ClosableTask closable) {
      closable.close();
    }
  }

  /**
   * The task's commit and shutdown requests: plain fields read by the loop after each delivery, on the
   * same thread, so asking costs no synchronisation.
   */
  static final class Requests implements TaskCoordinator {
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
