package io.millrace.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Headers: ordered, repeatable names, immutable, one shared empty list. */
class HeadersTest {
  @Test
  void keepsOrderAndRepeatsAndFindsTheLastValueOfAName() {
    Headers h = Headers.of("trace", "a").with("hop", "1").with("hop", "2");
    assertThat(h.size()).isEqualTo(3);
    assertThat(h.name(0)).isEqualTo("trace");
    assertThat(h.lastString("hop")).isEqualTo("2");
    assertThat(h.lastValue("missing")).isNull();
    List<String> seen = new ArrayList<>();
    h.forEach((name, value) -> seen.add(name + "=" + new String(value, StandardCharsets.UTF_8)));
    assertThat(seen).containsExactly("trace=a", "hop=1", "hop=2");
    assertThat(h).hasToString("[trace=a, hop=1, hop=2]");
  }

  @Test
  void withReturnsANewListAndLeavesTheOldOneAsItWas() {
    Headers one = Headers.of("a", "1");
    Headers two = one.with("b", "2");
    assertThat(one.size()).isEqualTo(1);
    assertThat(two.size()).isEqualTo(2);
    assertThat(Headers.of("a", "1")).isEqualTo(one).hasSameHashCodeAs(one);
  }

  @Test
  void noHeadersIsOneSharedObjectAndBadInputIsRefused() {
    assertThat(Headers.wrap(new String[0], new byte[0][])).isSameAs(Headers.EMPTY);
    assertThat(Headers.EMPTY.isEmpty()).isTrue();
    assertThat(new Envelope("s", 0, 0, null, null, -1, 0).headers()).isSameAs(Headers.EMPTY);
    assertThatThrownBy(() -> Headers.wrap(new String[1], new byte[2][]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 header names");
    assertThatThrownBy(() -> Headers.EMPTY.with(null, "x"))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("name");
  }
}
