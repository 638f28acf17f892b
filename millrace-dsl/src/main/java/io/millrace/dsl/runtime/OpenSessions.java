package io.millrace.dsl.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.LongPredicate;

/**
 * The open sessions of a session window operator's store, on the heap: by key (which sessions a
 * record may join) and by end (which sessions a watermark closes). It is an index of the store,
 * never the only copy: the operator builds it from the store when its task starts (after a
 * restore from the changelog too) and changes it with the store, so a record costs no range
 * read and a watermark reads only the sessions it closes. Before, the store was read instead:
 * a range over the record's key per record, and a scan of every open session whenever the
 * earliest end may have closed (nearly every watermark), which was 90% of Nexmark q11's time.
 * Its cost: an object or three per open session (about 150 bytes), where the sessions' aggregates
 * stay in the store.
 *
 * <p><b>By end, lazily.</b> Most records extend their key's session to a later end. Kept in a
 * sorted set, each extension was a removal and an insertion (tree walks comparing ends: 10% of
 * Nexmark q11's loop). The ends are a binary heap instead, whose entries go stale rather than
 * being removed: an extension only adds its new session, and a new end, usually the latest,
 * stays at the heap's bottom after one comparison. A session taken off the heap counts only if
 * its key still has it (the same object); the heap is rebuilt from the live sessions when stale
 * entries outnumber them.
 *
 * <p>Loop thread only.
 */
final class OpenSessions {
  /** A session: its key's prefix in the store (length and key bytes), its first and last time. */
  record Session(byte[] prefix, long start, long end) {}

  /**
   * By end, then start, then the store's order of prefixes (one key's sessions never overlap, so
   * start sorts them). Written out: the chain of {@code Comparator.comparingLong(...)
   * .thenComparing...} lambdas cost 7% of Nexmark q11's loop in its calls alone.
   */
  private static final Comparator<Session> BY_END = (a, b) -> {
    int c = Long.compare(a.end(), b.end());
    if (c == 0) {
      c = Long.compare(a.start(), b.start());
    }
    return c != 0 ? c : Arrays.compareUnsigned(a.prefix(), b.prefix());
  };

  /** Stale entries the heap may hold beyond its live ones before it is rebuilt. */
  private static final int STALE_SLACK = 1024;

  private final Map<Prefix, List<Session>> byKey = new HashMap<>();
  /** Every live session, and stale ones (no longer their key's): see the class comment. */
  private final PriorityQueue<Session> byEnd = new PriorityQueue<>(BY_END);
  private int live;

  /** A prefix as a map key: compared by content. */
  private record Prefix(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Prefix p && Arrays.equals(bytes, p.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }
  }

  /**
   * The sessions of the key with this prefix, by start; empty if none. Read it, and change it
   * only through {@link #extend}.
   */
  List<Session> of(byte[] prefix) {
    List<Session> sessions = byKey.get(new Prefix(prefix));
    return sessions == null ? List.of() : sessions;
  }

  void add(Session session) {
    List<Session> sessions = byKey.computeIfAbsent(new Prefix(session.prefix()),
        p -> new ArrayList<>(2));
    int at = 0;
    while (at < sessions.size() && sessions.get(at).start() < session.start()) {
      at++;
    }
    sessions.add(at, session);
    live++;
    push(session);
  }

  /**
   * Session {@code sessions.get(index)} (a list {@link #of} gave) now ends at {@code end}, no
   * earlier, with its start: it keeps its place among its key's sessions.
   */
  void extend(List<Session> sessions, int index, long end) {
    Session old = sessions.get(index);
    if (end == old.end()) {
      return;
    }
    Session extended = new Session(old.prefix(), old.start(), end);
    sessions.set(index, extended); // the old one's heap entry is stale from now on
    push(extended);
  }

  void remove(Session session) {
    Prefix prefix = new Prefix(session.prefix());
    List<Session> sessions = byKey.get(prefix);
    if (sessions != null && removeSame(sessions, session)) {
      live--;
      if (sessions.isEmpty()) {
        byKey.remove(prefix);
      }
    } // its heap entry is stale from now on
  }

  /**
   * Takes out the sessions whose end is {@code closed}, earliest end (then start, then key)
   * first: the ends that are closed are those up to some time.
   */
  List<Session> removeClosed(LongPredicate closed) {
    List<Session> out = new ArrayList<>();
    while (!byEnd.isEmpty() && closed.test(byEnd.peek().end())) {
      Session s = byEnd.poll();
      Prefix prefix = new Prefix(s.prefix());
      List<Session> sessions = byKey.get(prefix);
      if (sessions == null || !removeSame(sessions, s)) {
        continue; // stale: extended or merged since
      }
      live--;
      out.add(s);
      if (sessions.isEmpty()) {
        byKey.remove(prefix);
      }
    }
    return out;
  }

  boolean isEmpty() {
    return live == 0;
  }

  /** Entries on the heap, stale ones included (tests). */
  int heapSize() {
    return byEnd.size();
  }

  /** Puts a session its key's list already holds on the heap. */
  private void push(Session session) {
    if (byEnd.size() >= 2 * live + STALE_SLACK) {
      rebuild(); // (which puts it there with the others)
    } else {
      byEnd.add(session);
    }
  }

  /** The heap of the live sessions only. */
  private void rebuild() {
    List<Session> all = new ArrayList<>(live);
    byKey.values().forEach(all::addAll);
    byEnd.clear();
    byEnd.addAll(all);
  }

  /** Removes this very session (not an equal one) from its key's list; says whether it was there. */
  private static boolean removeSame(List<Session> sessions, Session session) {
    for (int i = 0; i < sessions.size(); i++) {
      if (sessions.get(i) == session) {
        sessions.remove(i);
        return true;
      }
    }
    return false;
  }
}
