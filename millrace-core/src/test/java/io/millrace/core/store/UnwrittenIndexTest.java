package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnwrittenIndexTest {
  private static byte[] key(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<Integer> slots(UnwrittenIndex index, String from, String to) {
    return new ArrayList<>(index.between(from == null ? null : key(from),
        to == null ? null : key(to)).values());
  }

  @Test
  void rememberedSlotsAreFoundInKeyOrderOnlyOnceSorted() {
    UnwrittenIndex index = new UnwrittenIndex();
    index.remember(3, key("c"));
    index.remember(1, key("a"));
    index.remember(2, key("b"));
    assertThat(slots(index, null, null)).as("listed, not sorted yet").isEmpty();
    assertThat(index.has(1)).isTrue();
    assertThat(index.keyOf(3)).isEqualTo(key("c"));
    index.sortRemembered();
    assertThat(slots(index, null, null)).containsExactly(1, 2, 3);
    assertThat(slots(index, "b", null)).containsExactly(2, 3);
    assertThat(slots(index, null, "b")).containsExactly(1);
    assertThat(slots(index, "a", "c")).containsExactly(1, 2);
  }

  @Test
  void aForgottenSlotLeavesTheMapAndIsNotSortedInLater() {
    UnwrittenIndex index = new UnwrittenIndex();
    index.remember(1, key("a"));
    index.sortRemembered();
    index.remember(2, key("b"));
    index.forget(1);
    index.forget(2); // listed, not sorted yet
    index.forget(9); // never kept
    index.sortRemembered();
    assertThat(slots(index, null, null)).isEmpty();
    assertThat(index.has(1)).isFalse();
    assertThat(index.keyOf(2)).isNull();
    assertThat(index.keyOf(1_000)).isNull();
  }

  @Test
  void manyWritesBetweenIteratorsKeepTheListBoundedAndLoseNoSlot() {
    UnwrittenIndex index = new UnwrittenIndex();
    // Slots written and forgotten over and over between two iterators, past the list's first
    // size, then past the first size of the slot arrays: only the live ones are sorted in.
    for (int round = 0; round < 100; round++) {
      for (int slot = 0; slot < 50; slot++) {
        index.remember(slot, key(String.format("k%03d", slot)));
      }
      for (int slot = 0; slot < 50; slot++) {
        if (round < 99 || slot % 2 == 0) {
          index.forget(slot);
        }
      }
    }
    index.remember(200, key("z"));
    index.sortRemembered();
    List<Integer> expected = new ArrayList<>();
    for (int slot = 1; slot < 50; slot += 2) {
      expected.add(slot);
    }
    expected.add(200);
    assertThat(slots(index, null, null)).containsExactlyElementsOf(expected);
  }
}
