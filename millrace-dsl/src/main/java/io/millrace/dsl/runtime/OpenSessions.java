package io.millrace.dsl.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
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
 * <p>Loop thread only.
 */
final class OpenSessions {
  /** A session: its key's prefix in the store (length and key bytes), its first and last time. */
  record Session(byte[] prefix, long start, long end) {}

  /**
   * By end, then start, then the store's order of prefixes (one key's sessions never overlap, so
   * start sorts them). Written out: the chain of {@code Comparator.comparingLong(...)
   * .thenComparing...} lambdas cost 7% of Nexmark q11's loop in its calls alone (two removes and
   * adds per record).
   */
  private static final Comparator<Session> BY_END = (a, b) -> {
    int c = Long.compare(a.end(), b.end());
    if (c == 0) {
      c = Long.compare(a.start(), b.start());
    }
    return c != 0 ? c : Arrays.compareUnsigned(a.prefix(), b.prefix());
  };

  private final Map<Prefix, List<Session>> byKey = new HashMap<>();
  private final TreeSet<Session> byEnd = new TreeSet<>(BY_END);

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

  /** The sessions of the key with this prefix, by start; empty if none (do not change it). */
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
    byEnd.add(session);
  }

  void remove(Session session) {
    Prefix prefix = new Prefix(session.prefix());
    List<Session> sessions = byKey.get(prefix);
    if (sessions != null && sessions.remove(session) && sessions.isEmpty()) {
      byKey.remove(prefix);
    }
    byEnd.remove(session);
  }

  /**
   * Takes out the sessions whose end is {@code closed}, earliest end (then start, then key)
   * first: the ends that are closed are those up to some time.
   */
  List<Session> removeClosed(LongPredicate closed) {
    List<Session> out = new ArrayList<>();
    while (!byEnd.isEmpty() && closed.test(byEnd.first().end())) {
      Session s = byEnd.pollFirst();
      out.add(s);
      Prefix prefix = new Prefix(s.prefix());
      List<Session> sessions = byKey.get(prefix);
      sessions.remove(s);
      if (sessions.isEmpty()) {
        byKey.remove(prefix);
      }
    }
    return out;
  }

  boolean isEmpty() {
    return byEnd.isEmpty();
  }
}
