package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The bytes a re-grouped table's change crosses its repartition as: each kind read back as
 * written, and bytes that are no change (empty, an unknown kind, a replace whose old value's
 * length runs past its end or is negative) refused with what is wrong.
 */
class TableChangesTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void eachKindIsReadBackAsWritten() {
    byte[] add = TableChanges.one(TableChanges.ADD, bytes("new"));
    assertThat(TableChanges.kind(add)).isEqualTo(TableChanges.ADD);
    assertThat(TableChanges.value(add)).isEqualTo(bytes("new"));

    byte[] subtract = TableChanges.one(TableChanges.SUBTRACT, bytes(""));
    assertThat(TableChanges.kind(subtract)).isEqualTo(TableChanges.SUBTRACT);
    assertThat(TableChanges.value(subtract)).isEmpty();

    byte[] replace = TableChanges.replace(bytes("old value"), bytes("new"));
    assertThat(TableChanges.kind(replace)).isEqualTo(TableChanges.REPLACE);
    assertThat(TableChanges.old(replace)).isEqualTo(bytes("old value"));
    assertThat(TableChanges.value(replace)).isEqualTo(bytes("new"));
  }

  @Test
  void bytesThatAreNoChangeAreRefusedSayingWhatIsWrong() {
    assertThatThrownBy(() -> TableChanges.kind(null)).hasMessage("not a table change: null");
    assertThatThrownBy(() -> TableChanges.kind(new byte[0]))
        .hasMessage("not a table change: no bytes");
    assertThatThrownBy(() -> TableChanges.kind(new byte[] {9, 1, 2}))
        .hasMessage("not a table change: kind byte 9 of 3 bytes");
    byte[] tooLong = TableChanges.replace(bytes("old"), bytes("x"));
    tooLong[4] = 50; // says its old value has 50 bytes
    assertThatThrownBy(() -> TableChanges.old(tooLong))
        .hasMessage("a table change of 9 bytes says its old value has 50");
    byte[] negative = TableChanges.replace(bytes("old"), bytes("x"));
    negative[1] = (byte) 0x80;
    assertThatThrownBy(() -> TableChanges.value(negative))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("says its old value has -");
    assertThatThrownBy(() -> TableChanges.old(new byte[] {TableChanges.REPLACE, 0}))
        .hasMessage("a table change of 2 bytes is too short for a replace (a kind byte and a "
            + "4-byte length first)");
  }
}
