package io.millrace.samza.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.testing.Await;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ArrivalClockTest {
  private final AtomicLong wall = new AtomicLong(1_700_000_000_000L);
  private final ArrivalClock clock = new ArrivalClock(wall::get, 100_000L);

  @Test
  void openingReadsTheWallClockAtOnce() {
    clock.open();
    try {
      assertThat(clock.millis()).isEqualTo(1_700_000_000_000L);
    } finally {
      clock.close();
    }
  }

  @Test
  void whileOpenItFollowsTheWallClock() throws Exception {
    clock.open();
    try {
      wall.set(1_700_000_000_007L);
      Await.until(Await.DEADLINE, "the clock's tick to 1_700_000_000_007",
          () -> clock.millis() == 1_700_000_000_007L);
    } finally {
      clock.close();
    }
  }

  @Test
  void oneThreadTicksFromTheFirstOpenToTheLastClose() throws Exception {
    clock.open();
    Thread ticker = clock.ticker();
    clock.open();
    assertThat(clock.ticker()).isSameAs(ticker);
    clock.close();
    assertThat(ticker.isAlive()).isTrue();
    assertThat(ticker.isDaemon()).isTrue();

    clock.close();

    assertThat(clock.ticker()).isNull();
    Await.until(Await.DEADLINE, "the ticking thread to end", () -> !ticker.isAlive());
  }

  @Test
  void reopenedItTicksAgainFromTheWallClockOfThen() throws Exception {
    clock.open();
    clock.close();
    wall.set(1_700_000_000_050L);

    clock.open();
    try {
      assertThat(clock.millis()).isEqualTo(1_700_000_000_050L);
      assertThat(clock.ticker().isAlive()).isTrue();
    } finally {
      clock.close();
    }
  }

  @Test
  void closingMoreOftenThanOpeningIsRefused() {
    assertThatThrownBy(clock::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed more often than opened");
  }
}
