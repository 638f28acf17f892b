package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Envelope;
import io.millrace.core.testing.Await;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The process's one consumer of a changelog system, shared by restores and standby copies: each
 * partition's batches reach its own registrant's sink whoever polls, a restore pauses the copies'
 * partitions until it leaves, a failed poll is followed by a fresh consumer that resumes the
 * others after what each was handed, and a second thread is refused.
 */
class ChangelogReaderTest {
  private static final StreamSpec LOG = new StreamSpec("log", "log", null, null);
  private final List<FakeConsumer> made = new CopyOnWriteArrayList<>();
  private final ChangelogReader reader = new ChangelogReader("fake", () -> {
    FakeConsumer c = new FakeConsumer();
    made.add(c);
    return c;
  });

  @Test
  void everyPartitionsBatchesReachItsOwnSinkWhoeverPollsAndOneConsumerServesAll() throws Exception {
    Recorded restore = new Recorded();
    Recorded copy = new Recorded();
    int r = reader.register(LOG, 0, StartPosition.oldest(), restore, false);
    int c = reader.register(LOG, 1, StartPosition.oldest(), copy, true);
    FakeConsumer consumer = made.get(0);
    consumer.fetched(r, 0, 3);
    consumer.fetched(c, 0, 2); // the copy's, fetched ahead

    reader.poll(new int[] {r}, 1, 100, 0); // the restore polls for its own partition only

    assertThat(made).hasSize(1);
    assertThat(restore.offsets).containsExactly(0L, 1L, 2L);
    assertThat(copy.offsets).as("handed to the copy's sink, not the restore's")
        .containsExactly(0L, 1L);
  }

  @Test
  void aRestorePausesTheCopiesPartitionsUntilItsLastPartitionLeaves() {
    int c = reader.register(LOG, 1, StartPosition.oldest(), new Recorded(), true);
    FakeConsumer consumer = made.get(0);
    assertThat(consumer.paused).isEmpty();

    int r1 = reader.register(LOG, 0, StartPosition.oldest(), new Recorded(), false);
    int r2 = reader.register(LOG, 2, StartPosition.oldest(), new Recorded(), false);
    int c2 = reader.register(LOG, 3, StartPosition.oldest(), new Recorded(), true);
    assertThat(consumer.paused).containsExactlyInAnyOrder(c, c2);

    reader.unregister(r1);
    assertThat(consumer.paused).as("one restore partition still read")
        .containsExactlyInAnyOrder(c, c2);
    reader.unregister(r2);
    assertThat(consumer.paused).isEmpty();
    assertThat(consumer.started).isEqualTo(1);
  }

  @Test
  void aFailedPollIsFollowedByAFreshConsumerResumingTheOthersAfterWhatEachWasHanded()
      throws Exception {
    Recorded copy = new Recorded();
    int failing = reader.register(LOG, 0, StartPosition.oldest(), new Recorded(), false);
    int c = reader.register(LOG, 1, StartPosition.after(9), copy, true);
    FakeConsumer first = made.get(0);
    first.fetched(c, 10, 5); // offsets 10-14 reach the copy
    reader.poll(new int[] {c}, 1, 100, 0);
    first.failure = new IllegalStateException("fetch failed");

    assertThatThrownBy(() -> reader.poll(new int[] {failing}, 1, 100, 0))
        .hasMessage("fetch failed");
    reader.unregister(failing); // the failed restore drops its partition
    reader.poll(new int[] {c}, 1, 100, 0);

    assertThat(first.stopped).isTrue();
    assertThat(made).hasSize(2);
    FakeConsumer fresh = made.get(1);
    assertThat(fresh.starts).containsExactly(Map.entry(c, StartPosition.after(14)));
    assertThat(fresh.started).isEqualTo(1);
    assertThat(fresh.paused).as("no restore reads any more").isEmpty();
  }

  @Test
  void aRegistrationAfterAFailureRegistersEachPartitionOnceOnTheFreshConsumer() throws Exception {
    int c = reader.register(LOG, 1, StartPosition.oldest(), new Recorded(), true);
    made.get(0).failure = new IllegalStateException("fetch failed");
    assertThatThrownBy(() -> reader.poll(new int[] {c}, 1, 100, 0)).hasMessage("fetch failed");

    int r = reader.register(LOG, 0, StartPosition.oldest(), new Recorded(), false);

    FakeConsumer fresh = made.get(1);
    assertThat(fresh.starts).containsOnlyKeys(c, r);
    assertThat(fresh.started).isEqualTo(1);
    assertThat(fresh.paused).containsExactly(c);
  }

  @Test
  void anIndexGivenUpIsGivenToTheNextPartitionAndItsOldBatchesGoNowhere() throws Exception {
    Recorded first = new Recorded();
    Recorded second = new Recorded();
    int a = reader.register(LOG, 0, StartPosition.oldest(), first, false);
    reader.unregister(a);
    int b = reader.register(LOG, 1, StartPosition.oldest(), second, false);
    made.get(0).fetched(b, 0, 1);

    reader.poll(new int[] {b}, 1, 100, 0);

    assertThat(b).isEqualTo(a);
    assertThat(first.offsets).isEmpty();
    assertThat(second.offsets).containsExactly(0L);
    assertThat(made.get(0).unregistered).containsExactly(a);
  }

  @Test
  void aSecondThreadUsingTheReaderWhileTheFirstPollsIsRefusedNamingIt() throws Exception {
    int r = reader.register(LOG, 0, StartPosition.oldest(), new Recorded(), false);
    FakeConsumer consumer = made.get(0);
    consumer.holdPolls = new CountDownLatch(1);
    CompletableFuture<Integer> polling = CompletableFuture.supplyAsync(() -> {
      try {
        return reader.poll(new int[] {r}, 1, 100, 0);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    Await.until(Await.DEADLINE, "the first thread polls", () -> consumer.polling);

    assertThatThrownBy(() -> reader.register(LOG, 1, StartPosition.oldest(), new Recorded(), true))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("used by two threads at once")
        .hasMessageContaining("system 'fake'");
    consumer.holdPolls.countDown();
    assertThat(polling.get(30, TimeUnit.SECONDS)).isZero();
  }

  /** A sink that notes the offsets it was handed. */
  private static final class Recorded implements BatchSink {
    final List<Long> offsets = new ArrayList<>();

    @Override
    public void accept(int index, Envelope[] messages, int from, int count) {
      for (int i = from; i < from + count; i++) {
        offsets.add(messages[i].offset());
      }
    }

    @Override
    public void endOfStream(int index) {}

    @Override
    public void head(int index, long upcomingOffset) {}
  }

  /** A consumer that hands over what a test says was fetched, for every index at each poll. */
  private static final class FakeConsumer implements SystemConsumer {
    final Map<Integer, StartPosition> starts = new HashMap<>();
    final List<Integer> paused = new CopyOnWriteArrayList<>();
    final List<Integer> unregistered = new ArrayList<>();
    final Map<Integer, List<Envelope>> fetched = new HashMap<>();
    final AtomicInteger polls = new AtomicInteger();
    volatile boolean polling;
    volatile CountDownLatch holdPolls;
    RuntimeException failure;
    int started;
    boolean stopped;

    void fetched(int index, long firstOffset, int count) {
      for (int i = 0; i < count; i++) {
        fetched.computeIfAbsent(index, k -> new ArrayList<>())
            .add(new Envelope("log", index, firstOffset + i, null, "v", -1, 1));
      }
    }

    @Override
    public void register(int index, StreamSpec stream, int partition, StartPosition start) {
      if (starts.containsKey(index)) {
        throw new IllegalStateException("index " + index + " is registered already");
      }
      starts.put(index, start);
    }

    @Override
    public void unregister(int index) {
      starts.remove(index);
      fetched.remove(index);
      paused.remove(Integer.valueOf(index));
      unregistered.add(index);
    }

    @Override
    public void start() {
      started++;
    }

    @Override
    public int poll(int[] indices, int count, int maxMessages, BatchSink sink,
        long timeoutMillis) throws InterruptedException {
      polls.incrementAndGet();
      CountDownLatch hold = holdPolls;
      if (hold != null) {
        polling = true;
        hold.await(30, TimeUnit.SECONDS);
      }
      if (failure != null) {
        throw failure;
      }
      int handed = 0;
      for (Map.Entry<Integer, List<Envelope>> e : fetched.entrySet()) {
        Envelope[] batch = e.getValue().toArray(new Envelope[0]);
        sink.accept(e.getKey(), batch, 0, batch.length);
        handed += batch.length;
      }
      fetched.clear();
      return handed;
    }

    @Override
    public void pause(int index) {
      paused.add(index);
    }

    @Override
    public void resume(int index) {
      paused.remove(Integer.valueOf(index));
    }

    @Override
    public void stop() {
      stopped = true;
    }
  }
}
