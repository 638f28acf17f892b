package io.millrace.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.bench.nexmark.events.Bid;
import org.junit.jupiter.api.Test;

class LinesTest {
  private static Bid bid(long priceCents) {
    return new Bid(7, 9, priceCents, "channel", "url", 1_000, "extra");
  }

  @Test
  void q1WritesTheEuroPriceWithThreeDecimalsPaddedWithZeros() {
    assertThat(Lines.q1(bid(0), Lines.euroMilliCents(0))).isEqualTo("7,9,0.000,1000,extra");
    assertThat(Lines.q1(bid(1), 5)).isEqualTo("7,9,0.005,1000,extra");
    assertThat(Lines.q1(bid(1), 45)).isEqualTo("7,9,0.045,1000,extra");
    assertThat(Lines.q1(bid(1), 1_234)).isEqualTo("7,9,1.234,1000,extra");
    assertThat(Lines.q1(bid(1), 10_000)).isEqualTo("7,9,10.000,1000,extra");
    // 12,345 cents at 0.908: 11,209.26 euro cents, exactly.
    assertThat(Lines.q1(bid(12_345), Lines.euroMilliCents(12_345)))
        .isEqualTo("7,9,11209.260,1000,extra");
  }

  @Test
  void q1PadsAsTheFormatterItReplacedDid() {
    for (long m = 0; m < 3_000; m++) {
      String expected = "7,9," + (m / 1000) + "." + String.format("%03d", m % 1000)
          + ",1000,extra";
      assertThat(Lines.q1(bid(1), m)).isEqualTo(expected);
    }
  }
}
