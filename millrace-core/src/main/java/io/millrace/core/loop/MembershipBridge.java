package io.millrace.core.loop;

import io.millrace.spi.coordinator.MembershipListener;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The container's side of its membership, called on the membership's thread ({@link
 * MembershipRunner}): each change of the container's tasks is posted to the loop as an event for
 * the {@link TaskManager}, and the call waits for the loop's answer (a revoke returns once the
 * tasks are committed and closed). Questions the membership asks meanwhile (which tasks, what is
 * on local disk) are answered from what the task manager and the job publish, without the loop.
 */
final class MembershipBridge implements MembershipListener {
  private final LoopEvents events;
  private final TaskManager tasks;
  private final TaskSource source;
  /** The calls waiting for the loop's answer. */
  private final Set<CompletableFuture<Void>> waiting = ConcurrentHashMap.newKeySet();
  /** Why the loop answers no more (it stopped or failed), or null. */
  private volatile RuntimeException closed;

  MembershipBridge(LoopEvents events, TaskManager tasks, TaskSource source) {
    this.events = events;
    this.tasks = tasks;
    this.source = source;
  }

  @Override
  public void revoked(Set<Integer> numbers) {
    ask(done -> tasks.revoke(Set.copyOf(numbers), done));
  }

  @Override
  public void lost(Set<Integer> numbers) {
    ask(done -> {
      tasks.lose(Set.copyOf(numbers));
      done.complete(null);
    });
  }

  @Override
  public void assigned(Set<Integer> numbers) {
    ask(done -> {
      tasks.assign(Set.copyOf(numbers));
      done.complete(null);
    });
  }

  @Override
  public void standbys(Set<Integer> numbers) {
    ask(done -> {
      tasks.standbys(Set.copyOf(numbers));
      done.complete(null);
    });
  }

  @Override
  public Set<Integer> tasks() {
    return tasks.tasks();
  }

  @Override
  public Map<Integer, Map<String, Long>> localState() {
    return source.localState();
  }

  @Override
  public Map<Integer, Long> standbyLag() {
    return source.standbyLag();
  }

  /**
   * Posts {@code onLoop} to the loop and waits until it completes the future it is given; throws
   * what the loop threw doing it, or why the loop stopped answering.
   */
  private void ask(Consumer<CompletableFuture<Void>> onLoop) {
    if (events.onLoop()) {
      // Waiting for the loop on the loop would never end: the SPI says where calls come from.
      throw new IllegalStateException("the membership called its listener on the container's "
          + "loop thread; it may call it only from inside poll(), on the membership's thread");
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    waiting.add(done);
    try {
      RuntimeException why = closed;
      if (why != null) {
        throw why;
      }
      events.execute(() -> {
        if (done.isDone()) {
          return; // the loop stopped answering before it got here
        }
        try {
          onLoop.accept(done);
        } catch (RuntimeException | Error e) {
          done.completeExceptionally(e);
          throw e; // the container fails with it, as when the loop ran the membership's call
        }
      });
      done.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause);
    } finally {
      waiting.remove(done);
    }
  }

  /** The loop answers no more: every call waiting for it, and any made later, throws {@code why}. */
  void close(RuntimeException why) {
    closed = why;
    for (CompletableFuture<Void> f : waiting) {
      f.completeExceptionally(why);
    }
  }
}
