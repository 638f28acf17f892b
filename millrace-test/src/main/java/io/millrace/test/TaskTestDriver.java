package io.millrace.test;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.ClosableTask;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.api.WindowableTask;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.commit.CommitCounts;
import io.millrace.core.config.AnyInteger;
import io.millrace.core.config.JobFile;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.JobTranslators;
import io.millrace.core.job.TaskContextImpl;
import io.millrace.core.loop.CallbackTimers;
import io.millrace.core.loop.TaskScheduler;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Runs one task under a test's control, in the spirit of Kafka Streams' TopologyTestDriver: no
 * broker, no run loop, no thread of the driver's own. The test pipes messages into the task's
 * input partitions, advances a clock that fires the window timer, the task's scheduled callbacks
 * and the commits, reads what the task sent per output, fills and reads its stores, and ends its
 * inputs.
 *
 * <pre>{@code
 * try (TaskTestDriver driver = TaskTestDriver.forJob(Path.of("jobs/count-by-key.properties"))
 *     .build()) {
 *   driver.pipe("views", "alice", "/home");
 *   driver.pipe("views", "alice", "/cart");
 *   driver.advanceTime(Duration.ofSeconds(1));                    // task.window.ms=1000
 *   assertThat(driver.values("out")).containsExactly(2L);
 * }
 * }</pre>
 *
 * <p>The task is built as its job builds it: its class, inputs, outputs, window and commit
 * intervals and stores come from the job's keys (a file, a map, or the builder's own); the job's
 * systems are not used. A job written another way (a DSL application's {@code app.class}) is
 * translated first, as {@code millrace run} translates it. What the task sends to a stream it
 * also reads ({@code streams.<id>.intermediate=true}: a repartition) is piped back into it after
 * each call, in the order sent (one partition: every key comes back to this task); such an input
 * ends when all the others have. Stores are real (RocksDB when the job says so and it is on the test's
 * classpath) in a temporary directory, written through their serdes. {@link InitableTask#init}
 * runs at the first pipe, time advance or end of stream, so a test can fill stores first.
 *
 * <p>An async task's calls may complete on threads of the task's own (a client's): their outputs
 * show once the task completes the call; {@link #awaitCalls} waits for them. Built with
 * {@link Builder#holdCalls()}, a completed call's outputs stay held until the test releases it
 * ({@link Call#release}), in whatever order the test chooses. The driver hands piped records to
 * an async task as the run loop does: at most {@code task.max.concurrency} calls in flight (a held
 * call counts until released); under {@code task.ordering=key} a key's next record is not handed
 * over until its previous call is done, while other keys' records pass it. Records held back wait
 * in the driver, in the order piped ({@link #waiting}), and go on when the driver takes the
 * completions that freed their place, as the loop takes them at each cycle: at every pipe, time
 * advance, idle, end of stream, {@link #awaitCalls}, release of a held call, and
 * {@link #takeCompletions}.
 *
 * <p>Not thread-safe: one test thread drives it.
 *
 * <p><b>Size.</b> Past 500 lines: it is the test driver's whole public surface, each method
 * documented for users, and the hand-over of an async task's records, which needs the task, its
 * coordinator and the driver's way of reporting what the task threw (what is handed over when is
 * {@link CallGate}'s, the calls themselves {@link AsyncCalls}').
 */
public final class TaskTestDriver implements AutoCloseable {
  private static final long NANOS_PER_MS = 1_000_000;
  private final Object task;
  private final int partition;
  private final List<String> inputs;
  /** Inputs the task writes and reads back (a DSL repartition), by how many sends were fed. */
  private final Map<String, Integer> intermediates = new LinkedHashMap<>();
  private boolean feeding;
  private final Set<String> ended = new LinkedHashSet<>();
  private final Map<String, Long> nextOffset = new HashMap<>();
  private final CapturedOutputs outputs;
  private final TaskStores stores;
  private final TaskContextImpl context;
  private final List<Runnable> idleActions = new ArrayList<>();
  private final Requests requests = new Requests();
  private final AsyncCalls calls;
  /** Which piped records an async task gets now: the loop's bound and order per key. */
  private final CallGate gate;
  private final AsyncSettings asyncSettings;
  /** The task threw from processAsync: what the action that handed it the record throws. */
  private TaskFailure thrown;
  /** The task's scheduled callbacks, as its container keeps them, due by the driver's clock. */
  private final CallbackTimers timers = new CallbackTimers(() -> this.now * NANOS_PER_MS);
  private final long windowMs;
  private final long commitMs;
  private long now;
  private long nextWindow;
  private long nextCommit;
  private int commits;
  /** What the task reads of its commits ({@code TaskContext.commits()}). */
  private final CommitCounts commitCounts = new CommitCounts();
  private boolean initialized;
  private boolean closed;

  private TaskTestDriver(Builder b) {
    // A job written another way (a DSL application) is translated as the runtime translates it.
    JobConfig config = JobTranslators.translate(new JobConfig(b.config, b.source), b.loader);
    this.task = newTask(config, b.loader);
    this.partition = b.partition;
    this.inputs = config.getList("task.inputs");
    if (inputs.isEmpty()) {
      throw new ConfigException("task.inputs: the task needs at least one input ("
          + config.source() + ")");
    }
    for (String input : inputs) {
      if (config.getBoolean("streams." + input + ".intermediate", false)) {
        intermediates.put(input, 0);
      }
    }
    this.now = b.startMillis;
    this.windowMs = AnyInteger.of(config, "task.window.ms", -1,
        "an integer, in milliseconds (-1: no window calls)");
    this.commitMs = AnyInteger.of(config, "task.commit.ms", 60_000,
        "an integer, in milliseconds (0 or less: commit only when asked and at stop)");
    this.nextWindow = windowMs > 0 ? now + windowMs : Long.MAX_VALUE;
    this.nextCommit = commitMs > 0 ? now + commitMs : Long.MAX_VALUE;
    Map<String, Integer> outputPartitions = new LinkedHashMap<>();
    for (String output : config.getList("task.outputs")) {
      outputPartitions.put(output, config.getInt("streams." + output + ".partitions", 1, 1));
    }
    String name = "Partition " + partition;
    this.outputs = new CapturedOutputs(outputPartitions, name, () -> now);
    this.stores = TaskStores.open(config, b.stateDir, partition);
    // Read and checked as the job reads them (a bad value is refused, naming its key).
    this.asyncSettings = JobPlanner.asyncSettings(config);
    this.gate = new CallGate(asyncSettings);
    this.calls = new AsyncCalls(outputs, b.holdCalls, () -> {
      dispatch();
      throwIfThrew();
    });
    TaskScheduler scheduler = new TaskScheduler();
    scheduler.attach(timers, null);
    List<StreamPartition> partitions = new ArrayList<>();
    for (String input : inputs) {
      partitions.add(new StreamPartition(config.get("streams." + input + ".system", "test"),
          input, partition));
    }
    // One task: what it sends to a stream it reads comes back to it alone.
    this.context = new TaskContextImpl(name, partition, 1, List.copyOf(partitions), config.asMap(),
        new DefaultMetricsRegistry(false), outputs.taskCollector(), idleActions, stores.all(),
        scheduler, commitCounts);
  }

  /** A driver for a task class; give its inputs and outputs with the builder. */
  public static Builder forTask(Class<?> taskClass) {
    return new Builder(new LinkedHashMap<>(Map.of("task.class", taskClass.getName())),
        "the test driver's configuration", taskClass.getClassLoader());
  }

  /**
   * A driver for the task of a job's {@code .properties} file, with the job's keys (read as
   * {@code millrace run} reads them: a relative path is relative to the file's folder).
   */
  public static Builder forJob(Path propertiesFile) {
    JobConfig config = JobFile.load(propertiesFile, Map.of());
    return new Builder(new LinkedHashMap<>(config.asMap()), config.source(),
        Thread.currentThread().getContextClassLoader());
  }

  /** A driver for the task of a job given as keys and values. */
  public static Builder forJob(Map<String, String> config) {
    return new Builder(new LinkedHashMap<>(config), "the test driver's configuration",
        Thread.currentThread().getContextClassLoader());
  }

  // ---------------------------------------------------------------- input

  /** Pipes a message into the task's partition of {@code stream}, stamped with the clock. */
  public void pipe(String stream, Object key, Object value) {
    pipe(stream, key, value, now);
  }

  /**
   * Pipes a message with its own timestamp; the task sees it at the next offset of that stream
   * partition (0, 1, 2, ...), as one message of a real input.
   *
   * @throws TaskFailure if the task throws (or an async call of it failed)
   */
  public void pipe(String stream, Object key, Object value, long timestamp) {
    pipe(stream, key, value, timestamp, Headers.EMPTY);
  }

  /** Pipes a message with its own timestamp and headers. */
  public void pipe(String stream, Object key, Object value, long timestamp, Headers headers) {
    checkInput(stream);
    if (ended.contains(stream)) {
      throw new IllegalStateException("input " + stream + " has ended: nothing more can be piped");
    }
    start();
    long offset = nextOffset.merge(stream, 1L, Long::sum) - 1;
    Envelope envelope = new Envelope(stream, partition, offset, key, value, timestamp, 0,
        headers);
    if (task instanceof AsyncStreamTask) {
      gate.offer(envelope); // handed over now, or once what holds it back is done
      dispatch();
      throwIfThrew();
    } else {
      invoke("message " + envelope, () -> ((StreamTask) task).process(envelope,
          outputs.collector(timestamp), requests));
    }
    afterCall();
  }

  /**
   * Ends an input, as a bounded input's end: once every input has ended (and every async call
   * has completed), the task's {@link EndOfStreamListener#onEndOfStream} runs and a commit
   * follows.
   */
  public void endOfStream(String stream) {
    checkInput(stream);
    startWithCompletions();
    if (!ended.add(stream) || ended.size() + intermediates.size() < inputs.size()) {
      return;
    }
    feedIntermediates();
    if (calls.holding() && (calls.inFlight() > 0 || gate.waiting() > 0)) {
      throw new IllegalStateException(calls.inFlight() + " async call(s) not released (and "
          + gate.waiting() + " record(s) waiting for them): release them before the inputs end, "
          + "as the loop waits for them");
    }
    awaitCalls(Duration.ofSeconds(30)); // feeds back what the calls sent to a repartition
    ended.addAll(intermediates.keySet()); // everything the task sent itself has been read
    if (task instanceof EndOfStreamListener listener) {
      invoke("end of stream", () -> listener.onEndOfStream(outputs.collector(-1), requests));
    }
    commit();
  }

  /**
   * Runs what the task asked to run when its container runs out of messages
   * ({@code TaskContext.whenIdle}), as the loop does once per idle spell.
   */
  public void idle() {
    startWithCompletions();
    outputs.collector(-1);
    for (Runnable action : idleActions) {
      invoke("idle action", action::run);
    }
    afterCall();
  }

  // ---------------------------------------------------------------- time

  /**
   * Moves the clock on, firing on the way each scheduled callback, window ({@code task.window.ms})
   * and commit ({@code task.commit.ms}) that falls due, in time order, each at its own time.
   */
  public void advanceTime(Duration by) {
    if (by.isNegative()) {
      throw new IllegalArgumentException("time only moves forward: " + by);
    }
    startWithCompletions();
    long until = now + by.toMillis();
    while (Math.min(Math.min(nextWindow, nextCommit), nextCallback()) <= until) {
      long callbackDue = nextCallback();
      if (callbackDue <= nextWindow && callbackDue <= nextCommit) {
        now = callbackDue;
        CallbackTimers.Timer timer = timers.pollDue(now * NANOS_PER_MS);
        invoke("scheduled callback", () -> timer.callback.onCallback(outputs.collector(-1),
            requests));
        timers.reschedule(timer, now * NANOS_PER_MS);
        afterCall();
      } else if (nextWindow <= nextCommit) {
        now = nextWindow;
        nextWindow += windowMs;
        if (task instanceof WindowableTask windowable) {
          invoke("window", () -> windowable.window(outputs.collector(-1), requests));
        }
        afterCall();
      } else {
        now = nextCommit;
        nextCommit += commitMs;
        commit();
      }
    }
    now = until;
    timeOutCalls();
  }

  /**
   * Fails the async calls the task has not completed within {@code task.callback.timeout.ms} of
   * the driver's clock, as the loop does; the failure is thrown here, naming the record.
   */
  private void timeOutCalls() {
    if (calls.timeOut(now, asyncSettings.callbackTimeoutNanos() / 1_000_000L)) {
      dispatch(); // their places go to the records waiting for them
      calls.throwIfFailed();
    }
  }

  /** The driver's clock, in ms since the epoch; it starts at the builder's start time. */
  public long time() {
    return now;
  }

  // ---------------------------------------------------------------- output

  /** Everything the task sent to {@code stream} so far, in order. */
  public List<Output> outputs(String stream) {
    return outputs.of(stream);
  }

  /** The values the task sent to {@code stream} so far, in order. */
  public List<Object> values(String stream) {
    return outputs.of(stream).stream().map(Output::value).toList();
  }

  /** The keys and values the task sent to {@code stream}, the last value of each key winning. */
  public Map<Object, Object> lastValues(String stream) {
    Map<Object, Object> last = new LinkedHashMap<>();
    for (Output o : outputs.of(stream)) {
      last.put(o.key(), o.value());
    }
    return last;
  }

  /** Forgets the outputs captured so far (of every stream). */
  public void clearOutputs() {
    outputs.clear();
    intermediates.replaceAll((stream, fed) -> 0);
  }

  // ---------------------------------------------------------------- stores, requests, calls

  /** The task's instance of a store the job declares: the test may read and write it. */
  public <K, V> KeyValueStore<K, V> store(String name) {
    return stores.get(name);
  }

  /** Commits so far: timed, requested by the task, and the one after the inputs ended. */
  public int commits() {
    return commits;
  }

  /** Whether the task asked to shut down ({@link TaskCoordinator#shutdown}). */
  public boolean shutdownRequested() {
    return requests.shutdown != null;
  }

  /** Async calls begun and not yet completed (or, when holding, not yet released). */
  public int inFlight() {
    return calls.inFlight();
  }

  /**
   * Piped records an async task has not been handed yet: behind {@code task.max.concurrency}
   * calls in flight, behind a call of their key ({@code task.ordering=key}), or behind a call far
   * older than the rest (the loop's watermark ring is full). They go on, in order, as the driver
   * takes the completions that free their place.
   */
  public int waiting() {
    return gate.waiting();
  }

  /**
   * Takes the completions of async calls that have come (from any thread) since the driver last
   * took them, as the loop does at the start of each cycle: their places in flight and their keys
   * are freed, and the records waiting for them are handed to the task, in order. Every pipe,
   * time advance, idle, end of stream and release does this first; a test that completes calls
   * itself calls it to see what the loop would do next.
   *
   * @return how many records it handed to the task
   * @throws TaskFailure if a call failed, or the task threw on a record it was handed
   */
  public int takeCompletions() {
    start();
    int handed = dispatch();
    throwIfThrew();
    calls.throwIfFailed();
    afterCall();
    return handed;
  }

  /**
   * Waits until the task has completed every async call it began, and every record waiting for
   * one of them has been handed to it and completed too; without {@link Builder#holdCalls()} their
   * outputs are then visible. When holding, it waits for the calls handed out so far: the records
   * behind them wait for the test's releases.
   *
   * @throws TaskFailure if a call failed
   * @throws IllegalStateException if they did not complete within {@code timeout}
   */
  public void awaitCalls(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (thrown == null && !calls.failed()) {
        long seen = calls.finished();
        dispatch();
        feedIntermediates();
        int running = calls.running();
        if (running == 0 && (calls.holding() || gate.waiting() == 0)) {
          break;
        }
        if (running > 0 && !calls.awaitFinished(seen, deadline)) {
          throw new IllegalStateException(running + " async call(s) not completed by the task "
              + "within " + timeout.toMillis() + " ms, the oldest for " + calls.oldestRunning()
              + (gate.waiting() == 0 ? "" : "; " + gate.waiting() + " record(s) wait for them ("
              + "task.max.concurrency=" + asyncSettings.maxConcurrency() + ", task.ordering="
              + asyncSettings.ordering().name().toLowerCase(Locale.ROOT) + ")"));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for async calls", e);
    }
    throwIfThrew();
    calls.throwIfFailed();
  }

  /** The calls held for the test to release ({@link Builder#holdCalls()}), oldest first. */
  public List<Call> heldCalls() {
    return calls.held();
  }

  /** An async call the driver holds: its message, whether the task completed it, its release. */
  public interface Call {
    /** The message the call is for. */
    Envelope envelope();

    /** Whether the task has completed (or failed) it. */
    boolean completedByTask();

    /**
     * Makes the call's outputs visible, as the loop does when it takes the completion.
     *
     * @throws IllegalStateException if the task has not completed it yet
     * @throws TaskFailure if the task failed it
     */
    void release();
  }

  /**
   * Stops the task as a container's clean stop does: a commit, then {@link ClosableTask#close},
   * then its stores are flushed and closed (what it wrote as it closed is kept), and its temporary
   * files deleted.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (initialized) {
        commit(); // as a container's clean stop: a final commit, then the task closes
      }
      if (initialized && task instanceof ClosableTask closable) {
        invoke("close", closable::close);
      }
    } finally {
      stores.close();
    }
  }

  // ---------------------------------------------------------------- internals

  private void start() {
    if (closed) {
      throw new IllegalStateException("the driver is closed");
    }
    if (requests.shutdown != null) {
      throw new IllegalStateException("the task asked to shut down (" + requests.shutdown
          + "): it gets nothing more");
    }
    calls.throwIfFailed();
    if (!initialized) {
      initialized = true;
      if (task instanceof InitableTask initable) {
        invoke("init", () -> initable.init(context));
      }
    }
  }

  /** Takes the completions that came, as the loop does at each cycle, before an action. */
  private void startWithCompletions() {
    start();
    dispatch();
    throwIfThrew();
  }

  private void throwIfThrew() {
    if (thrown != null) {
      TaskFailure t = thrown;
      thrown = null;
      throw t;
    }
  }

  /**
   * Frees the places of the calls done since the last time and hands the task what may go now,
   * until nothing changes (a call may complete inside processAsync). A task that throws on a
   * record fails its call: the failure is thrown by the action that called this. Test thread.
   *
   * @return how many records it handed to the task
   */
  private int dispatch() {
    if (!(task instanceof AsyncStreamTask async) || !initialized) {
      return 0;
    }
    int handed = 0;
    boolean moved = true;
    while (moved) {
      moved = false;
      for (CallGate.Entry done : calls.drainDone()) {
        moved = true;
        CallGate.Entry successor = gate.done(done);
        if (successor != null) {
          call(async, successor); // its key's next record: the loop starts it at once too
          handed++;
        }
      }
      for (CallGate.Entry next = gate.next(); next != null; next = gate.next()) {
        moved = true;
        call(async, next);
        handed++;
      }
    }
    return handed;
  }

  private void call(AsyncStreamTask async, CallGate.Entry entry) {
    AsyncCalls.Call call = calls.begin(entry, now);
    Envelope envelope = entry.envelope;
    try {
      invoke("message " + envelope, () -> async.processAsync(envelope, call.collector(),
          requests, call));
    } catch (TaskFailure e) {
      calls.threw(call);
      if (thrown == null) {
        thrown = e;
      }
    }
  }

  private void afterCall() {
    feedIntermediates();
    if (requests.commit) {
      requests.commit = false;
      commit();
    }
  }

  /** A commit as the container's: every output so far is acknowledged (captured) when it ends. */
  private void commit() {
    long number = commitCounts.begin();
    stores.flush();
    commitCounts.written(number);
    commits++;
  }

  /**
   * Pipes what the task sent to a stream it also reads (a repartition) back into it, in the
   * order sent, until nothing is left: with one partition, every key's records come back here.
   */
  private void feedIntermediates() {
    if (feeding || intermediates.isEmpty()) {
      return;
    }
    feeding = true;
    try {
      boolean fed = true;
      while (fed) {
        fed = false;
        for (Map.Entry<String, Integer> e : intermediates.entrySet()) {
          List<Output> sent = outputs.of(e.getKey());
          while (e.getValue() < sent.size()) {
            Output o = sent.get(e.getValue());
            e.setValue(e.getValue() + 1);
            pipe(e.getKey(), o.key(), o.value(), o.timestamp(), o.headers());
            fed = true;
          }
        }
      }
    } finally {
      feeding = false;
    }
  }

  private void checkInput(String stream) {
    if (!inputs.contains(stream)) {
      throw new IllegalArgumentException("'" + stream + "' is not one of the task's inputs "
          + inputs + " (task.inputs)");
    }
  }

  private interface Body {
    void run() throws Exception;
  }

  private void invoke(String what, Body body) {
    try {
      body.run();
    } catch (TaskFailure e) {
      throw e;
    } catch (Exception e) { // a send the collector refused too: the job would fail the same way
      throw new TaskFailure("task threw on " + what + ": " + e, e);
    }
  }

  /** The task, built as its job builds it (the same checks of task.class). */
  private static Object newTask(JobConfig config, ClassLoader loader) {
    Constructor<?> constructor = JobPlanner.taskConstructor(config, loader);
    try {
      return constructor.newInstance();
    } catch (ReflectiveOperationException e) {
      throw new ConfigException("cannot create task.class " + constructor.getDeclaringClass()
          .getName() + " with its no-argument constructor: " + e);
    }
  }

  /** When the soonest scheduled callback is due, in whole ms (rounded up), or Long.MAX_VALUE. */
  private long nextCallback() {
    long due = timers.nextDue();
    return due == Long.MAX_VALUE ? Long.MAX_VALUE : Math.floorDiv(due + NANOS_PER_MS - 1,
        NANOS_PER_MS);
  }

  /** What the task asked of its coordinator during the last call. */
  private static final class Requests implements TaskCoordinator {
    boolean commit;
    Scope shutdown;

    @Override
    public void commit(Scope scope) {
      commit = true;
    }

    @Override
    public void shutdown(Scope scope) {
      shutdown = scope;
    }
  }

  /** Configures a driver. */
  public static final class Builder {
    private final Map<String, String> config;
    private final String source;
    private final ClassLoader loader;
    private int partition;
    private long startMillis;
    private Path stateDir;
    private boolean holdCalls;

    private Builder(Map<String, String> config, String source, ClassLoader loader) {
      this.config = config;
      this.source = source;
      this.loader = loader;
    }

    /** Adds input streams ({@code task.inputs}). */
    public Builder input(String... ids) {
      return append("task.inputs", ids);
    }

    /** Adds output streams ({@code task.outputs}). */
    public Builder output(String... ids) {
      return append("task.outputs", ids);
    }

    /** Sets a key of the job, e.g. {@code task.window.ms} or {@code stores.counts.factory}. */
    public Builder set(String key, String value) {
      config.put(key, value);
      return this;
    }

    /** The partition number the task serves (default 0). */
    public Builder partition(int number) {
      this.partition = number;
      return this;
    }

    /** Where the clock starts, in ms since the epoch (default 0). */
    public Builder startTime(long epochMillis) {
      this.startMillis = epochMillis;
      return this;
    }

    /** Where the stores' files go (default: a temporary directory, deleted at close). */
    public Builder stateDir(Path dir) {
      this.stateDir = dir;
      return this;
    }

    /** Holds each completed async call until the test releases it ({@link #heldCalls}). */
    public Builder holdCalls() {
      this.holdCalls = true;
      return this;
    }

    /** Builds the driver; the task's {@code init} waits for the first interaction. */
    public TaskTestDriver build() {
      return new TaskTestDriver(this);
    }

    private Builder append(String key, String... ids) {
      List<String> all = new ArrayList<>();
      String current = config.get(key);
      if (current != null && !current.isBlank()) {
        all.add(current);
      }
      all.addAll(List.of(ids));
      config.put(key, String.join(",", all));
      return this;
    }
  }
}
