package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.CommitProgress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeldWritesTest {
  /** Commit counters moved by the test. */
  private static final class Counters implements CommitProgress {
    long begun;
    long written;

    @Override
    public long begun() {
      return begun;
    }

    @Override
    public long writtenThrough() {
      return written;
    }
  }

  private final Counters commits = new Counters();
  private final List<String> done = new ArrayList<>();

  @Test
  void aWriteWaitsForACommitThatBeganAfterItWasMadeToBeWritten() {
    HeldWrites held = new HeldWrites(commits);
    commits.begun = 3; // commit 3 is on its way: it may have flushed before the write's results
    held.after(() -> done.add("w1"));
    commits.written = 3;
    held.runDue();
    assertThat(done).as("commit 3 began before the write").isEmpty();
    commits.begun = 4;
    held.after(() -> done.add("w2"));
    commits.written = 4;
    held.runDue();
    assertThat(done).as("commit 4 began after w1, not after w2").containsExactly("w1");
    commits.begun = 5;
    commits.written = 5;
    held.runDue();
    assertThat(done).containsExactly("w1", "w2");
    assertThat(held.size()).isZero();
  }

  @Test
  void writesRunInTheOrderTheyWereMadeWhenSeveralFallDueAtOnce() {
    HeldWrites held = new HeldWrites(commits);
    for (int i = 0; i < 5; i++) {
      int n = i;
      commits.begun = i; // commits began between the writes, none written
      held.after(() -> done.add("w" + n));
    }
    commits.written = 10;
    held.runDue();
    assertThat(done).containsExactly("w0", "w1", "w2", "w3", "w4");
  }

  @Test
  void aWriteThatThrowsStaysHeldAndRunsAgainBeforeTheWritesAfterIt() {
    HeldWrites held = new HeldWrites(commits);
    int[] tries = {0};
    held.after(() -> {
      if (tries[0]++ == 0) {
        throw new IllegalStateException("the store failed");
      }
      done.add("w1");
    });
    held.after(() -> done.add("w2"));
    commits.begun = 1;
    commits.written = 1;
    assertThatThrownBy(held::runDue).hasMessage("the store failed");
    assertThat(done).isEmpty();
    assertThat(held.size()).isEqualTo(2);
    held.runDue();
    assertThat(done).containsExactly("w1", "w2");
    assertThat(held.size()).isZero();
  }

  @Test
  void aTaskAsksForACommitOnceTwoClosesAndACachesWorthOfEntriesWait() {
    HeldWrites held = new HeldWrites(commits);
    int half = HeldWrites.COMMIT_AT_ENTRIES / 2;
    held.after(HeldWrites.COMMIT_AT_ENTRIES, () -> done.add("one big close"));
    assertThat(held.commitWanted()).as("one close, however big: the periodic commit will do")
        .isFalse();
    held.after(half, () -> done.add("w2"));
    assertThat(held.commitWanted()).isTrue();
    assertThat(held.commitWanted()).as("asked once for the commit").isFalse();
    commits.begun = 1; // the commit asked for begins: the writes wait for it to be written
    held.after(half, () -> done.add("w3"));
    assertThat(held.commitWanted()).as("the commit asked for is not written yet").isFalse();
    commits.written = 1;
    held.runDue();
    assertThat(done).containsExactly("one big close", "w2");
    assertThat(held.commitWanted()).as("what is left is below the bound").isFalse();
    held.after(half, () -> done.add("w4"));
    assertThat(held.commitWanted()).as("the commit asked for was written: ask again").isTrue();
  }

  @Test
  void underExactlyOnceAWriteRunsAtOnce() {
    HeldWrites held = new HeldWrites(null);
    held.after(() -> done.add("w"));
    assertThat(done).containsExactly("w");
  }
}
