package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.dsl.runtime.OpenSessions.Session;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The session operator's index of its open sessions: by key, and by end with stale heap entries
 * left behind by extensions and removals, which never close anything.
 */
class OpenSessionsTest {
  private static byte[] prefix(String key) {
    return KeyPrefix.of(key.getBytes(StandardCharsets.UTF_8));
  }

  private static String describe(List<Session> sessions) {
    List<String> out = new ArrayList<>();
    for (Session s : sessions) {
      out.add(new String(s.prefix(), Integer.BYTES, s.prefix().length - Integer.BYTES,
          StandardCharsets.UTF_8) + "[" + s.start() + "," + s.end() + "]");
    }
    return String.join(" ", out);
  }

  @Test
  void anExtendedSessionClosesByItsNewEndOnly() {
    OpenSessions open = new OpenSessions();
    open.add(new Session(prefix("a"), 0, 10));
    open.extend(open.of(prefix("a")), 0, 30);

    assertThat(open.removeClosed(end -> end <= 10)).as("the old end is stale").isEmpty();
    assertThat(describe(open.removeClosed(end -> end <= 30))).isEqualTo("a[0,30]");
    assertThat(open.isEmpty()).isTrue();
  }

  @Test
  void sessionsCloseByEndThenStartThenKey() {
    OpenSessions open = new OpenSessions();
    open.add(new Session(prefix("b"), 5, 20));
    open.add(new Session(prefix("a"), 5, 20));
    open.add(new Session(prefix("a"), 0, 3));
    open.add(new Session(prefix("c"), 1, 20));
    open.add(new Session(prefix("c"), 30, 40));

    assertThat(describe(open.removeClosed(end -> end <= 20)))
        .isEqualTo("a[0,3] c[1,20] a[5,20] b[5,20]");
    assertThat(describe(open.of(prefix("c")))).isEqualTo("c[30,40]");
    assertThat(open.isEmpty()).isFalse();
  }

  @Test
  void aRemovedSessionNeverCloses() {
    OpenSessions open = new OpenSessions();
    Session s = new Session(prefix("a"), 0, 10);
    open.add(s);
    open.remove(s);

    assertThat(open.removeClosed(end -> true)).isEmpty();
    assertThat(open.isEmpty()).isTrue();
    assertThat(open.of(prefix("a"))).isEmpty();
  }

  @Test
  void anEqualSessionAddedAfterOneWasRemovedClosesOnce() {
    OpenSessions open = new OpenSessions();
    byte[] a = prefix("a");
    Session first = new Session(a, 0, 10);
    open.add(first);
    open.remove(first);
    open.add(new Session(a, 0, 10)); // the same content, another object (a merge can do this)

    assertThat(describe(open.removeClosed(end -> true))).isEqualTo("a[0,10]");
  }

  @Test
  void staleEntriesAreDroppedOnceTheyOutnumberTheLiveOnes() {
    OpenSessions open = new OpenSessions();
    open.add(new Session(prefix("a"), 0, 0));
    for (int end = 1; end <= 10_000; end++) {
      open.extend(open.of(prefix("a")), 0, end);
    }

    assertThat(open.heapSize()).isLessThanOrEqualTo(2 + 1024 + 1);
    assertThat(describe(open.removeClosed(end -> true))).isEqualTo("a[0,10000]");
  }

  /** What the index must say: every live session, closed in the index's order. */
  @Test
  void randomAddsExtensionsRemovalsAndClosesAgreeWithAPlainList() {
    SplittableRandom random = new SplittableRandom(7);
    OpenSessions open = new OpenSessions();
    List<Session> model = new ArrayList<>();
    Comparator<Session> order = Comparator.comparingLong(Session::end)
        .thenComparingLong(Session::start)
        .thenComparing(Session::prefix, Arrays::compareUnsigned);
    long now = 0;
    for (int step = 0; step < 20_000; step++) {
      now += random.nextInt(3);
      byte[] key = prefix("k" + random.nextInt(50));
      List<Session> sessions = open.of(key);
      int op = random.nextInt(10);
      if (sessions.isEmpty() || op < 2) {
        long start = sessions.isEmpty() ? now
            : sessions.get(sessions.size() - 1).end() + 1 + random.nextInt(5);
        Session s = new Session(key, start, start + random.nextInt(3));
        open.add(s);
        model.add(s);
      } else if (op < 8) {
        int i = random.nextInt(sessions.size());
        Session old = sessions.get(i);
        long limit = i + 1 < sessions.size() ? sessions.get(i + 1).start() - 1 : old.end() + 10;
        long end = old.end() + random.nextLong(Math.max(1, limit - old.end() + 1));
        open.extend(sessions, i, end);
        model.remove(old);
        model.add(open.of(key).get(i));
      } else if (op < 9) {
        Session old = sessions.get(random.nextInt(sessions.size()));
        open.remove(old);
        model.remove(old);
      } else {
        long upTo = now - random.nextInt(20);
        List<Session> expected = model.stream().filter(s -> s.end() <= upTo).sorted(order)
            .toList();
        model.removeAll(expected);
        assertThat(describe(open.removeClosed(end -> end <= upTo))).as("step %d", step)
            .isEqualTo(describe(expected));
      }
      assertThat(open.isEmpty()).isEqualTo(model.isEmpty());
    }
    assertThat(describe(open.removeClosed(end -> true)))
        .isEqualTo(describe(model.stream().sorted(order).toList()));
  }
}
