package io.millrace.core.loop;

import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.MpscUnboundedArrayQueue;

/**
 * What other threads ask of a container's loop (Flink's mailbox): each event runs on the loop
 * thread between two deliveries, in the order it was posted, so nothing another thread decides
 * touches the loop's state under it, and the loop never polls for another thread's progress. A
 * post wakes a loop that sleeps for lack of work.
 *
 * <p>Threading: {@link #execute} from any thread; the rest on the loop thread. The queue never
 * refuses a post (a linked chain of array chunks): events are rare (a commit's step, a task
 * restored, a membership change), never one per message.
 */
public final class LoopEvents implements Executor {
  private final MpscUnboundedArrayQueue<Runnable> queue = new MpscUnboundedArrayQueue<>(64);
  /** The loop's thread, woken by a post; null before it runs. */
  private volatile Thread loop;

  /** Posts an event for the loop. Any thread. */
  @Override
  public void execute(Runnable event) {
    queue.offer(event);
    Thread t = loop;
    if (t != null) {
      LockSupport.unpark(t); // a loop parked for lack of work (or in a consumer's wait) wakes
    }
  }

  /** The loop runs on the calling thread from now on. */
  void bind() {
    loop = Thread.currentThread();
  }

  /** Whether the calling thread is the loop's. */
  boolean onLoop() {
    return Thread.currentThread() == loop;
  }

  /** Whether an event waits: two volatile reads, once a cycle. Loop thread. */
  boolean pending() {
    return !queue.isEmpty();
  }

  /**
   * Sleeps until an event is posted (or was already) or {@code nanos} pass. Loop thread, bound.
   */
  void await(long nanos) {
    if (queue.isEmpty()) {
      LockSupport.parkNanos(this, nanos);
    }
  }

  /**
   * Runs the events posted so far, in order; an event that throws leaves the later ones queued
   * (the loop fails). Loop thread.
   *
   * @return how many ran
   */
  int runPending() {
    int ran = 0;
    for (Runnable event = queue.relaxedPoll(); event != null; event = queue.relaxedPoll()) {
      event.run();
      ran++;
    }
    return ran;
  }
}
