package io.millrace.batching;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Groups the requests an asynchronous task makes to a remote service into batches, so one remote
 * call serves many messages (micro-batching). Each request completes with its own result.
 *
 * <p>Requests join the open batch in the order they are submitted. The batch is sent, by handing
 * it to the {@link BatchCall}, as soon as one of these happens:
 *
 * <ul>
 *   <li>it holds {@link Builder#maxSize maxSize} requests: the submit that filled it sends it;
 *   <li>{@link Builder#maxLinger maxLinger} has passed since its <em>first</em> request: the
 *       {@link LingerScheduler}'s thread sends it;
 *   <li>{@link #flush()} is called: the caller sends what is waiting, however few.
 * </ul>
 *
 * <p>So under load batches fill, and when traffic is light a request waits at most the linger
 * time.
 *
 * <p>A service that can only take so many calls at once (a few connections, a rate limit) is
 * best called with {@link Builder#maxInFlight maxInFlight}: while that many batches are out,
 * nothing leaves on linger or flush and the open batch keeps filling; the completion of a batch
 * sends the next one (a full batch waiting, else the open one). Without it, a saturated service
 * makes small batches queue up at the service while the batcher keeps sending them at every
 * linger or idle flush (Kafka's producer bounds {@code max.in.flight.requests.per.connection} for
 * the same reason). A task makes idle time cheaper still by flushing whenever its container loop has nothing
 * else to do: it registers {@code batcher::flush} to run when the loop is idle (the runtime hook
 * for that is {@code TaskContext.whenIdle(Runnable)}), so a lone request leaves at once instead of
 * lingering, while a busy loop keeps filling batches.
 *
 * <p>Batches fill only with requests that are in flight together: an {@link
 * io.millrace.api.AsyncStreamTask} needs a {@code task.max.concurrency} of at least
 * {@code maxSize} (one message at a time makes every batch a batch of one). A batcher is
 * thread-safe, so one instance may also be shared by the tasks of a container.
 *
 * <p>The batcher holds a lock only to add a request or to take the open batch; it never calls
 * user code (the {@link BatchCall}, a {@link Completion}, the scheduler) while holding it. The
 * {@code BatchCall} runs on the thread that caused the send, and each {@code Completion} on the
 * thread that completes its request (see {@link BatchResults}).
 *
 * <p>An enriching task that looks up a profile for each message's key:
 *
 * <pre>{@code
 * public final class EnrichTask implements InitableTask, AsyncStreamTask, ClosableTask {
 *   private final ProfileClient client = ProfileClient.connect("profiles:9000");
 *   private Batcher<String, Profile> lookups;
 *
 *   public void init(TaskContext context) {
 *     lookups = Batcher.<String, Profile>builder((ids, results) ->
 *             client.getAll(ids).whenComplete((profiles, error) -> {
 *               if (error != null) {
 *                 results.failAll(error);
 *               } else {
 *                 for (int i = 0; i < ids.size(); i++) {
 *                   results.complete(i, profiles.get(i));
 *                 }
 *               }
 *             }))
 *         .maxSize(200)
 *         .maxLinger(Duration.ofMillis(2))
 *         .build();
 *     context.whenIdle(lookups::flush); // send what waits whenever the loop is idle
 *   }
 *
 *   public void processAsync(
 *       Envelope envelope, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
 *     lookups.submit((String) envelope.key(), (profile, error) -> {
 *       if (error != null) {
 *         callback.fail(error);
 *       } else {
 *         collector.send("enriched", envelope.key(), profile);
 *         callback.complete();
 *       }
 *     });
 *   }
 *
 *   public void close() {
 *     lookups.close(); // sends what is still waiting
 *   }
 * }
 * }</pre>
 *
 * @param <Q> the type of a request
 * @param <R> the type of a request's result
 *
 * <p><b>Size.</b> Past 500 lines, most of it documentation and the concurrency argument of each
 * method: the open batch, linger, in-flight bound and completion are one lock's state.
 */
public final class Batcher<Q, R> implements AutoCloseable {
  /** Default {@link Builder#maxSize}. */
  public static final int DEFAULT_MAX_SIZE = 100;

  /** Default {@link Builder#maxLinger}. */
  public static final Duration DEFAULT_MAX_LINGER = Duration.ofMillis(5);

  private static final int MAX_INITIAL_CAPACITY = 128;

  private final BatchCall<Q, R> call;
  private final int maxSize;
  private final Duration maxLinger;
  private final long maxLingerNanos;
  private final LingerScheduler scheduler;
  private final int maxInFlight;

  private final Object lock = new Object();
  // Guarded by lock.
  private OpenBatch<Q, R> open;
  /** Full batches waiting for one in flight to return (only with a maxInFlight). */
  private final ArrayDeque<OpenBatch<Q, R>> ready = new ArrayDeque<>();
  private int inFlight;
  /** Counts the batches taken so far: a linger timer acts only on the batch it was started for. */
  private long generation;
  private boolean closed;
  // Written under lock, read without it.
  private volatile long batchesSent;
  private volatile long requestsSent;

  private Batcher(BatchCall<Q, R> call, int maxSize, Duration maxLinger,
      LingerScheduler scheduler, int maxInFlight) {
    this.call = call;
    this.maxSize = maxSize;
    this.maxInFlight = maxInFlight;
    this.maxLinger = maxLinger;
    this.maxLingerNanos = saturatedNanos(maxLinger);
    this.scheduler = scheduler;
  }

  /**
   * Starts building a batcher that sends its batches with {@code call}.
   *
   * @param call sends one batch; see {@link BatchCall}
   * @param <Q> the type of a request
   * @param <R> the type of a request's result
   */
  public static <Q, R> Builder<Q, R> builder(BatchCall<Q, R> call) {
    return new Builder<>(call);
  }

  /**
   * Adds a request to the open batch; {@code onDone} is told its result once the batch has been
   * sent and the {@link BatchCall} completes it. If this request fills the batch, the batch is
   * sent on this thread before this method returns.
   *
   * @param request the request (not {@code null})
   * @param onDone told once when the request is done (not {@code null})
   * @throws IllegalStateException if the batcher is closed
   */
  public void submit(Q request, Completion<R> onDone) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(onDone, "onDone");
    OpenBatch<Q, R> full = null;
    long timerGeneration = -1;
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the batcher is closed: no more requests");
      }
      OpenBatch<Q, R> batch = open;
      if (batch == null) {
        batch = new OpenBatch<>(Math.min(maxSize, MAX_INITIAL_CAPACITY));
        open = batch;
        timerGeneration = generation;
      }
      batch.requests.add(request);
      batch.completions.add(onDone);
      if (batch.requests.size() >= maxSize) {
        full = dispatchLocked(takeLocked());
      }
    }
    if (full != null) {
      send(full);
    } else if (timerGeneration >= 0) {
      startTimer(timerGeneration);
    }
  }

  /**
   * Adds a request to the open batch, like {@link #submit(Object, Completion)}, and returns its
   * result as a future: completed with the request's result, or exceptionally with the error that
   * failed it.
   *
   * @param request the request (not {@code null})
   * @throws IllegalStateException if the batcher is closed
   */
  public CompletableFuture<R> submit(Q request) {
    CompletableFuture<R> future = new CompletableFuture<>();
    submit(
        request,
        (result, error) -> {
          if (error != null) {
            future.completeExceptionally(error);
          } else {
            future.complete(result);
          }
        });
    return future;
  }

  /**
   * Sends the open batch now, on this thread, however few requests it holds; does nothing if no
   * request is waiting, or if {@link Builder#maxInFlight maxInFlight} batches are out (the open
   * batch then leaves when one of them returns). A task calls it when its container loop is idle
   * (see the class comment).
   */
  public void flush() {
    OpenBatch<Q, R> batch;
    synchronized (lock) {
      batch = open == null || inFlight >= maxInFlight ? null : dispatchLocked(takeLocked());
    }
    if (batch != null) {
      send(batch);
    }
  }

  /**
   * Sends the open batch and any full batches waiting for {@link Builder#maxInFlight
   * maxInFlight}, whatever is in flight, and refuses later submits. It does not wait for the
   * results of batches already sent: they complete as they come. Closing twice does nothing.
   */
  @Override
  public void close() {
    List<OpenBatch<Q, R>> batches = new ArrayList<>();
    synchronized (lock) {
      closed = true;
      if (open != null) {
        ready.add(takeLocked());
      }
      while (!ready.isEmpty()) {
        OpenBatch<Q, R> batch = ready.poll();
        inFlight++;
        countSentLocked(batch);
        batches.add(batch);
      }
    }
    for (OpenBatch<Q, R> batch : batches) {
      send(batch);
    }
  }

  /** How many batches have been sent (handed to the {@link BatchCall}) so far. */
  public long batchesSent() {
    return batchesSent;
  }

  /**
   * How many requests have been sent in batches so far; divided by {@link #batchesSent()} it is
   * the mean batch size.
   */
  public long requestsSent() {
    return requestsSent;
  }

  /** How many requests wait, not sent yet: in the open batch and in full batches held back. */
  public int pending() {
    synchronized (lock) {
      int waiting = open == null ? 0 : open.requests.size();
      for (OpenBatch<Q, R> batch : ready) {
        waiting += batch.requests.size();
      }
      return waiting;
    }
  }

  /** How many batches have been sent and not yet completed in full. */
  public int inFlight() {
    synchronized (lock) {
      return inFlight;
    }
  }

  /** The most requests a batch holds. */
  public int maxSize() {
    return maxSize;
  }

  /** The longest a batch waits after its first request before it is sent. */
  public Duration maxLinger() {
    return maxLinger;
  }

  @Override
  public String toString() {
    return "Batcher[maxSize=" + maxSize + ", maxLinger=" + maxLinger + ", batchesSent="
        + batchesSent + ", requestsSent=" + requestsSent + "]";
  }

  /** Takes the open batch (which must exist) out of the batcher. */
  private OpenBatch<Q, R> takeLocked() {
    OpenBatch<Q, R> batch = open;
    open = null;
    generation++;
    return batch;
  }

  /**
   * Returns {@code batch} to be sent now, counted as in flight, or holds it back and returns null
   * when {@code maxInFlight} batches are out.
   */
  private OpenBatch<Q, R> dispatchLocked(OpenBatch<Q, R> batch) {
    if (inFlight >= maxInFlight) {
      ready.add(batch);
      return null;
    }
    inFlight++;
    countSentLocked(batch);
    return batch;
  }

  private void countSentLocked(OpenBatch<Q, R> batch) {
    batchesSent = batchesSent + 1;
    requestsSent = requestsSent + batch.requests.size();
  }

  /** Every request of a sent batch has been told: a slot is free for the next batch. */
  private void batchReturned() {
    OpenBatch<Q, R> next;
    synchronized (lock) {
      inFlight--;
      next = ready.poll();
      if (next == null && open != null) {
        next = takeLocked(); // it has waited for the slot: it leaves however full it is
      }
      if (next != null) {
        inFlight++;
        countSentLocked(next);
      }
    }
    if (next != null) {
      send(next);
    }
  }

  /** Starts the linger timer of the batch opened at {@code timerGeneration}. Outside the lock. */
  private void startTimer(long timerGeneration) {
    LingerScheduler.Cancellable timer;
    try {
      timer = scheduler.schedule(() -> lingered(timerGeneration), maxLingerNanos);
    } catch (RuntimeException | Error e) {
      // No timer: send the batch now rather than let a lone request wait for ever.
      lingered(timerGeneration);
      report(e);
      return;
    }
    synchronized (lock) {
      if (generation == timerGeneration && open != null) {
        open.timer = timer;
        return;
      }
    }
    cancel(timer); // the batch left while the timer was being started
  }

  /** The linger time of the batch opened at {@code timerGeneration} has passed. */
  private void lingered(long timerGeneration) {
    OpenBatch<Q, R> batch;
    synchronized (lock) {
      if (generation != timerGeneration || open == null) {
        return; // that batch has left already (full, flushed or closed): a stale timer
      }
      if (inFlight >= maxInFlight) {
        return; // it leaves when a batch in flight returns
      }
      batch = dispatchLocked(takeLocked());
    }
    send(batch);
  }

  /** Hands a batch taken from the batcher to the {@link BatchCall}. Outside the lock. */
  private void send(OpenBatch<Q, R> taken) {
    // taken.timer was written under the lock before this thread took the batch under it.
    if (taken.timer != null) {
      cancel(taken.timer);
    }
    SentBatch<Q, R> batch = new SentBatch<>(taken,
        maxInFlight == Integer.MAX_VALUE ? null : this::batchReturned);
    try {
      call.call(batch.requests, batch);
    } catch (Throwable e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      batch.failAll(e);
      if (e instanceof Error) {
        throw (Error) e;
      }
    }
  }

  private static void cancel(LingerScheduler.Cancellable timer) {
    try {
      timer.cancel();
    } catch (RuntimeException e) {
      report(e); // a timer left running is harmless
    }
  }

  /** Hands an exception nobody asked for to the current thread's uncaught exception handler. */
  static void report(Throwable e) {
    Thread thread = Thread.currentThread();
    thread.getUncaughtExceptionHandler().uncaughtException(thread, e);
  }

  private static long saturatedNanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /** The batch that requests are joining. Guarded by the batcher's lock while open. */
  private static final class OpenBatch<Q, R> {
    final ArrayList<Q> requests;
    final ArrayList<Completion<R>> completions;
    LingerScheduler.Cancellable timer;

    OpenBatch(int capacity) {
      requests = new ArrayList<>(capacity);
      completions = new ArrayList<>(capacity);
    }
  }

  /**
   * A batch handed to the {@link BatchCall}: its requests and, per index, the completion still to
   * be told (cleared when told, so each is told once). Final fields: safe to hand to any thread.
   */
  private static final class SentBatch<Q, R> implements BatchResults<R> {
    final List<Q> requests;
    private final AtomicReferenceArray<Completion<R>> completions;
    /** Told when the last request is told; null when nothing counts batches in flight. */
    private final Runnable onReturned;
    private final AtomicInteger untold;

    SentBatch(OpenBatch<Q, R> taken, Runnable onReturned) {
      this.onReturned = onReturned;
      this.untold = onReturned == null ? null : new AtomicInteger(taken.requests.size());
      this.requests = Collections.unmodifiableList(taken.requests);
      int size = taken.completions.size();
      this.completions = new AtomicReferenceArray<>(size);
      for (int i = 0; i < size; i++) {
        completions.lazySet(i, taken.completions.get(i));
      }
      // The final field and the hand-off to the BatchCall publish the array's contents.
    }

    @Override
    public int size() {
      return completions.length();
    }

    @Override
    public void complete(int index, R value) {
      tell(take(index), value, null);
      told();
    }

    @Override
    public void fail(int index, Throwable error) {
      Objects.requireNonNull(error, "error");
      tell(take(index), null, error);
      told();
    }

    @Override
    public void failAll(Throwable error) {
      Objects.requireNonNull(error, "error");
      for (int i = 0; i < completions.length(); i++) {
        Completion<R> completion = completions.getAndSet(i, null);
        if (completion != null) {
          tell(completion, null, error);
          told();
        }
      }
    }

    /** Counts one request told; the last one frees the batch's slot. */
    private void told() {
      if (untold != null && untold.decrementAndGet() == 0) {
        onReturned.run();
      }
    }

    private Completion<R> take(int index) {
      Objects.checkIndex(index, completions.length());
      Completion<R> completion = completions.getAndSet(index, null);
      if (completion == null) {
        throw new IllegalStateException(
            "request " + index + " of a batch of " + completions.length()
                + " was already completed");
      }
      return completion;
    }

    private static <R> void tell(Completion<R> completion, R value, Throwable error) {
      try {
        completion.done(value, error);
      } catch (Throwable e) {
        report(e); // one failing completion must not keep the others from being told
      }
    }

    @Override
    public String toString() {
      return "batch of " + completions.length() + " requests";
    }
  }

  /**
   * Configures a {@link Batcher}. Defaults: {@code maxSize} {@value Batcher#DEFAULT_MAX_SIZE},
   * {@code maxLinger} 5 ms, and the {@linkplain LingerScheduler#shared() shared scheduler}.
   *
   * @param <Q> the type of a request
   * @param <R> the type of a request's result
   */
  public static final class Builder<Q, R> {
    private final BatchCall<Q, R> call;
    private int maxSize = DEFAULT_MAX_SIZE;
    private Duration maxLinger = DEFAULT_MAX_LINGER;
    private LingerScheduler scheduler;
    private int maxInFlight = Integer.MAX_VALUE;

    private Builder(BatchCall<Q, R> call) {
      this.call = Objects.requireNonNull(call, "call");
    }

    /**
     * The most requests a batch holds; a batch that reaches it is sent at once. {@code 1} sends
     * every request on its own.
     *
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder<Q, R> maxSize(int maxSize) {
      if (maxSize < 1) {
        throw new IllegalArgumentException("maxSize must be at least 1, was " + maxSize);
      }
      this.maxSize = maxSize;
      return this;
    }

    /**
     * The longest a batch waits, from its first request, before it is sent however few requests
     * it holds. {@link Duration#ZERO} sends each batch as soon as the scheduler runs its timer.
     *
     * @throws IllegalArgumentException if it is negative
     */
    public Builder<Q, R> maxLinger(Duration maxLinger) {
      Objects.requireNonNull(maxLinger, "maxLinger");
      if (maxLinger.isNegative()) {
        throw new IllegalArgumentException("maxLinger must not be negative, was " + maxLinger);
      }
      this.maxLinger = maxLinger;
      return this;
    }

    /**
     * The most batches out at once (sent and not yet completed in full); by default there is no
     * limit. At the limit, batches leave only when one returns, so they fill meanwhile: set it to
     * the number of calls the service can serve at once.
     *
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder<Q, R> maxInFlight(int maxInFlight) {
      if (maxInFlight < 1) {
        throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
      }
      this.maxInFlight = maxInFlight;
      return this;
    }

    /** What runs the linger timers; tests pass one they advance by hand. */
    public Builder<Q, R> scheduler(LingerScheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /** A new batcher with these settings. */
    public Batcher<Q, R> build() {
      return new Batcher<>(call, maxSize, maxLinger,
          scheduler != null ? scheduler : LingerScheduler.shared(), maxInFlight);
    }
  }
}
