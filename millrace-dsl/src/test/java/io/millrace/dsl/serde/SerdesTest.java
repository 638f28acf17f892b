package io.millrace.dsl.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The DSL's serdes read back what they wrote, in the runtime's byte layouts. */
class SerdesTest {
  @Test
  void longsAreEightBigEndianBytesAndComeBackWhateverTheirSign() {
    for (long v : new long[] {0, 1, -1, 255, 256, Long.MIN_VALUE, Long.MAX_VALUE, -123456789L}) {
      byte[] bytes = Serdes.longs().toBytes(v);
      assertThat(bytes).isEqualTo(ByteBuffer.allocate(8).putLong(v).array());
      assertThat(Serdes.longs().fromBytes(bytes)).isEqualTo(v);
    }
    assertThat(Serdes.longs().toBytes(null)).isNull();
    assertThatThrownBy(() -> Serdes.longs().fromBytes(new byte[3]))
        .hasMessageContaining("8 bytes, not 3");
  }

  @Test
  void stringsIntegersAndBytesComeBackAsTheyWere() {
    assertThat(Serdes.string().fromBytes(Serdes.string().toBytes("héllo"))).isEqualTo("héllo");
    assertThat(Serdes.integers().fromBytes(Serdes.integers().toBytes(-42))).isEqualTo(-42);
    byte[] raw = {1, 2, 3};
    assertThat(Serdes.bytes().fromBytes(Serdes.bytes().toBytes(raw))).isSameAs(raw);
  }
}
