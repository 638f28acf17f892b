package io.millrace.core.loop;

import io.millrace.api.Envelope;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.Ordering;
import io.millrace.core.async.Watermark;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.MpscUnboundedArrayQueue;

/**
 * Runs a container's asynchronous tasks (and synchronous tasks on a worker pool): limits what is in
 * flight per task, keeps per-key order, collects completions from any thread, moves each
 * partition's committed offset to its contiguous watermark, and times out callbacks that never
 * come.
 *
 * <p>Threading: every method but {@link #completed} and {@link #lateCompletion} belongs to the
 * loop thread. Completions cross threads only through an MPSC queue that never refuses an offer;
 * the loop drains it in batches at the start of each cycle, and a loop parked for lack of work is
 * woken by the first completion. What the dispatcher keeps per partition (its watermark) and per
 * task (what is in flight, the busy keys) lives in {@link PartitionState} and {@link TaskInstance}.
 *
 * <p>A task stops being fed (its partitions leave the chooser) when {@code task.max.concurrency}
 * messages are in flight, or as many wait for a busy key; a partition stops being fed when its
 * watermark ring is full (a slow message holds back how far it runs ahead).
 */
final class AsyncDispatcher {
  private final Delivery loop;
  private final int maxConcurrency;
  private final Ordering ordering;
  private final long timeoutNanos;
  /** Messages a task may hold back behind busy keys ({@link AsyncSettings#maxParked}). */
  private final int maxParked;
  /** Slots of each partition's watermark ring ({@link AsyncSettings#ringCapacity}). */
  private final int ringCapacity;
  private final ExecutorService pool;
  /**
   * Completions from any thread. Unbounded (a linked chain of array chunks), so that an offer
   * never fails whatever the container's task count, which changes with its assignment; it holds
   * at most the messages in flight.
   */
  private final MpscUnboundedArrayQueue<PendingMessage> completions =
      new MpscUnboundedArrayQueue<>(1024);
  private PendingMessage oldest;
  private PendingMessage newest;
  private int outstanding;
  private volatile Thread sleeping;

  AsyncDispatcher(Delivery loop, AsyncSettings settings, ExecutorService pool) {
    this.loop = loop;
    this.maxConcurrency = settings.maxConcurrency();
    this.ordering = settings.ordering();
    this.timeoutNanos = settings.callbackTimeoutNanos();
    this.maxParked = settings.maxParked();
    this.ringCapacity = settings.ringCapacity();
    this.pool = pool;
  }

  /** Prepares a task the container takes: its busy keys under key ordering. */
  void attach(TaskInstance t) {
    if (ordering == Ordering.KEY) {
      t.busyKeys = new HashMap<>();
    }
  }

  /** Prepares a partition the container takes: its watermark ring. */
  void attach(PartitionState p) {
    p.watermark = new Watermark(ringCapacity);
  }

  /** Messages handed out and not yet below their partition's watermark. */
  int outstanding() {
    return outstanding;
  }

  boolean hasOutstanding(PartitionState p) {
    return !p.watermark.isEmpty();
  }

  /**
   * Hands up to {@code max} buffered messages of a partition to its task.
   *
   * @return how many left the buffer (0 when the task or partition is blocked)
   */
  int deliver(PartitionState p, int max, long now) {
    TaskInstance t = p.task;
    PartitionBuffer buffer = p.buffer;
    Watermark watermark = p.watermark;
    int n = 0;
    while (n < max && !buffer.isEmpty()) {
      if (t.blocked) {
        loop.setChoosable(p, false); // new data re-offered it; it waits for a completion
        return n;
      }
      if (watermark.isFull()) {
        p.blocked = true;
        loop.setChoosable(p, false);
        return n;
      }
      Envelope e = buffer.poll();
      n++;
      PendingMessage m = new PendingMessage(this, t, p, watermark.add(e.offset()), e);
      outstanding++;
      t.outstanding++;
      if (e.readError() != null) {
        loop.errors().unreadable(t, e); // throws under task.error.policy=fail
        finish(m);
        continue;
      }
      if (ordering == Ordering.KEY) {
        ArrayDeque<PendingMessage> waiting = t.busyKeys.get(e.key());
        if (waiting != null) {
          waiting.add(m); // its key is busy: it waits, the rest go on
          t.parked++;
          updateBlocked(t);
          continue;
        }
        t.busyKeys.put(e.key(), new ArrayDeque<>(2));
      }
      start(m, now);
    }
    return n;
  }

  private void start(PendingMessage m, long now) {
    TaskInstance t = m.task;
    t.inFlight++;
    updateBlocked(t);
    m.startNanos = now;
    if (newest == null) {
      oldest = m;
    } else {
      newest.next = m;
      m.previous = newest;
    }
    newest = m;
    if (t.asyncTask != null) {
      try {
        t.asyncTask.processAsync(m.envelope, m.collector, t.coordinator, m);
      } catch (Exception e) {
        failQuietly(m, e);
      }
    } else {
      try {
        pool.execute(() -> {
          t.running.incrementAndGet();
          try {
            if (t.revoked) {
              return; // the task left the container: its close must not race this message
            }
            t.task.process(m.envelope, m.collector, m.coordinator);
            m.complete();
          } catch (Exception e) {
            failQuietly(m, e);
          } finally {
            t.running.decrementAndGet();
          }
        });
      } catch (RejectedExecutionException e) {
        failQuietly(m, e);
      }
    }
  }

  private static void failQuietly(PendingMessage m, Exception e) {
    try {
      m.fail(e);
    } catch (IllegalStateException alreadySettled) {
      // The task completed the callback and then threw: the completion stands.
    }
  }

  /** A callback completed; any thread. */
  void completed(PendingMessage m) {
    completions.offer(m); // unbounded: never refused
    Thread loopThread = sleeping;
    if (loopThread != null) {
      LockSupport.unpark(loopThread);
    }
  }

  /** A callback came after its message timed out: it changes nothing. */
  void lateCompletion(PendingMessage m) {
    RunLoop.LOG.warn("task {}: callback for {} offset {} came after its time-out; ignored",
        m.task.name, m.envelope.stream() + "/" + m.envelope.partition(), m.envelope.offset());
  }

  /** Applies the completions that arrived; loop thread. Returns how many. */
  int applyCompletions() {
    int applied = 0;
    PendingMessage m;
    while ((m = completions.relaxedPoll()) != null) {
      if (m.task.revoked) {
        continue; // its task left the container: abandon() counted it out already
      }
      applied++;
      unlink(m);
      m.task.inFlight--;
      Object outcome = m.outcome();
      String what = "callback failed for message";
      if (outcome == PendingMessage.COMPLETED) {
        try {
          m.collector.replay();
        } catch (RuntimeException e) {
          outcome = e; // its output could not be sent: it failed, as a synchronous send would
          what = "output could not be sent for message";
        }
      }
      if (outcome == PendingMessage.COMPLETED) {
        applyRequests(m);
      } else {
        loop.errors().failed(m.task, m.envelope, (Throwable) outcome, what); // throws under fail
      }
      release(m);
    }
    return applied;
  }

  /**
   * Forgets a leaving task's messages in flight and held back: they no longer count as
   * outstanding, and their completions are dropped when they come ({@link TaskInstance#revoked}
   * is set). Their partitions' watermarks stay where they are: what completed below them is what
   * the commit keeps. Loop thread.
   */
  void abandon(TaskInstance t) {
    for (PendingMessage m = oldest; m != null; ) {
      PendingMessage next = m.next;
      if (m.task == t) {
        unlink(m); // no time-out for it any more
      }
      m = next;
    }
    // Everything of the task that was outstanding stops counting: in flight, held back behind a
    // busy key, or completed but not applied yet (its completion is dropped when it comes).
    outstanding -= t.outstanding;
    t.outstanding = 0;
    if (t.busyKeys != null) {
      t.busyKeys.clear();
    }
    t.inFlight = 0;
    t.parked = 0;
    for (PartitionState p : t.partitions) {
      p.blocked = false;
    }
  }

  /** Fails the messages whose callbacks are overdue; loop thread. */
  void checkTimeouts(long now) {
    while (oldest != null && now - oldest.startNanos > timeoutNanos) {
      PendingMessage m = oldest;
      unlink(m);
      if (!m.timeOut()) {
        continue; // it completed meanwhile: its completion is in the queue
      }
      m.task.inFlight--;
      loop.errors().failed(m.task, m.envelope, new IllegalStateException("the callback for "
          + m.envelope.stream() + "/" + m.envelope.partition() + " offset "
          + m.envelope.offset() + " did not complete within task.callback.timeout.ms="
          + timeoutNanos / 1_000_000), "callback timed out for message");
      release(m);
    }
  }

  /** A message is done with (completed, skipped or dead-lettered): free its key and its slot. */
  private void release(PendingMessage m) {
    if (ordering == Ordering.KEY) {
      Map<Object, ArrayDeque<PendingMessage>> keys = m.task.busyKeys;
      ArrayDeque<PendingMessage> waiting = keys.get(m.envelope.key());
      PendingMessage successor = waiting == null ? null : waiting.poll();
      if (successor == null) {
        keys.remove(m.envelope.key());
      } else {
        m.task.parked--;
        start(successor, loop.cycleNanos);
      }
    }
    finish(m);
  }

  private void finish(PendingMessage m) {
    outstanding--;
    m.task.outstanding--;
    PartitionState p = m.partition;
    long moved = p.watermark.complete(m.slot);
    if (moved != Long.MIN_VALUE) {
      loop.watermarkMoved(p, moved);
      if (p.blocked) {
        p.blocked = false;
        loop.setChoosable(p, !m.task.blocked);
      }
    }
    updateBlocked(m.task);
    if (p.watermark.isEmpty()) {
      loop.partitionSettled(p);
    }
  }

  private void updateBlocked(TaskInstance t) {
    boolean blocked = t.inFlight >= maxConcurrency || t.parked >= maxParked;
    if (blocked != t.blocked) {
      t.blocked = blocked;
      for (PartitionState p : t.partitions) {
        loop.setChoosable(p, !blocked && !p.blocked);
      }
    }
  }

  private void applyRequests(PendingMessage m) {
    PendingMessage.DeferredCoordinator deferred = m.coordinator;
    if (deferred.commit != null) {
      m.task.coordinator.commit(deferred.commit);
    }
    if (deferred.shutdown != null) {
      m.task.coordinator.shutdown(deferred.shutdown);
    }
  }

  private void unlink(PendingMessage m) {
    if (m.previous != null) {
      m.previous.next = m.next;
    } else if (oldest == m) {
      oldest = m.next;
    }
    if (m.next != null) {
      m.next.previous = m.previous;
    } else if (newest == m) {
      newest = m.previous;
    }
    m.previous = null;
    m.next = null;
  }

  /** Parks the loop until a completion arrives or {@code nanos} pass. */
  void awaitCompletion(long nanos) {
    sleeping = Thread.currentThread();
    if (completions.isEmpty()) {
      LockSupport.parkNanos(nanos);
    }
    sleeping = null;
  }
}
