package io.millrace.test;

import io.millrace.api.Envelope;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.Ordering;
import io.millrace.core.async.Watermark;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Which piped records an async task is handed, and when, decided as the run loop's dispatcher
 * decides: at most {@code task.max.concurrency} calls in flight; under {@code task.ordering=key}
 * a key's next record waits (held back, up to the loop's look-ahead) until its previous call is
 * done, while other keys pass it; an input whose watermark ring is full (a slow call far behind
 * the rest) is fed no more until it moves. What the loop leaves in its partition buffers waits
 * here, in the order piped.
 *
 * <p>Why not the dispatcher itself: it is the loop's hot path, built on the loop's partition
 * table, chooser and per-task fields so that it allocates nothing per message, and it hands
 * records out as the chooser picks partitions. The driver has no loop; it shares the dispatcher's
 * settings, limits ({@link AsyncSettings}) and watermark ring, and repeats only these decisions.
 *
 * <p>The test's thread only.
 */
final class CallGate {
  /** A piped record on its way to the task: its input's ring and its slot there once handed out. */
  static final class Entry {
    final Envelope envelope;
    final Watermark ring;
    long slot;

    Entry(Envelope envelope, Watermark ring) {
      this.envelope = envelope;
      this.ring = ring;
    }
  }

  private final int maxConcurrency;
  private final boolean byKey;
  private final int maxParked;
  private final int ringCapacity;
  private final Map<String, Watermark> rings = new HashMap<>();
  /** Piped and not yet handed out, in the order piped. */
  private final ArrayDeque<Entry> waiting = new ArrayDeque<>();
  /** Under key ordering: each key with a call in flight, and its records held back behind it. */
  private final Map<Object, ArrayDeque<Entry>> busyKeys = new HashMap<>();
  private int inFlight;
  private int parked;

  CallGate(AsyncSettings settings) {
    this.maxConcurrency = settings.maxConcurrency();
    this.byKey = settings.ordering() == Ordering.KEY;
    this.maxParked = settings.maxParked();
    this.ringCapacity = settings.ringCapacity();
  }

  /** A record piped: it waits behind those piped before it. */
  void offer(Envelope envelope) {
    Watermark ring = rings.computeIfAbsent(envelope.stream(), s -> new Watermark(ringCapacity));
    waiting.add(new Entry(envelope, ring));
  }

  /**
   * The next record to call now, counted in flight; {@code null} when the bound, the look-ahead
   * or full rings hold the rest back. Records of a busy key are held back on the way.
   */
  Entry next() {
    while (inFlight < maxConcurrency && parked < maxParked) {
      Entry e = pollDeliverable();
      if (e == null) {
        return null;
      }
      e.slot = e.ring.add(e.envelope.offset());
      if (byKey) {
        ArrayDeque<Entry> behind = busyKeys.get(e.envelope.key());
        if (behind != null) {
          behind.add(e); // its key is busy: it waits, the rest go on
          parked++;
          continue;
        }
        busyKeys.put(e.envelope.key(), new ArrayDeque<>(2));
      }
      inFlight++;
      return e;
    }
    return null;
  }

  /**
   * A call is done with (completed or failed, and taken): its slot is free and its key too.
   *
   * @return the record of its key that waited for it, now in flight, to call at once; or null
   */
  Entry done(Entry e) {
    inFlight--;
    Entry successor = null;
    if (byKey) {
      ArrayDeque<Entry> behind = busyKeys.get(e.envelope.key());
      successor = behind == null ? null : behind.poll();
      if (successor == null) {
        busyKeys.remove(e.envelope.key());
      } else {
        parked--;
        inFlight++;
      }
    }
    e.ring.complete(e.slot);
    return successor;
  }

  /** Records piped and not yet handed to the task (behind the bound, a busy key, a full ring). */
  int waiting() {
    return waiting.size() + parked;
  }

  /** Calls handed out and not yet taken back. */
  int inFlight() {
    return inFlight;
  }

  /** The oldest waiting record whose input may be fed; an input with a full ring keeps its order. */
  private Entry pollDeliverable() {
    for (Iterator<Entry> it = waiting.iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (!e.ring.isFull()) {
        it.remove();
        return e;
      }
    }
    return null;
  }
}
