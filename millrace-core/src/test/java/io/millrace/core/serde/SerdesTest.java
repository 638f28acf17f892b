package io.millrace.core.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SerdesTest {
  /** A value type for json:&lt;class&gt;. */
  public record Point(int x, int y, String label) {}

  /** A user serde named by its class. */
  public static final class ReversedStringSerde implements Serde<String> {
    @Override
    public byte[] toBytes(String object) {
      return object == null ? null
          : new StringBuilder(object).reverse().toString().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String fromBytes(byte[] bytes) {
      return bytes == null ? null
          : new StringBuilder(new String(bytes, StandardCharsets.UTF_8)).reverse().toString();
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(String name, T value) {
    Serde<Object> serde = (Serde<Object>) Serdes.byName("streams.s.value.serde", name);
    return (T) serde.fromBytes(serde.toBytes(value));
  }

  @Test
  void bytesRoundTripWithoutCopying() {
    byte[] bytes = {0, 1, (byte) 0xFF};
    BytesSerde serde = new BytesSerde();
    assertThat(serde.toBytes(bytes)).isSameAs(bytes);
    assertThat(serde.fromBytes(bytes)).isSameAs(bytes);
    assertThat(SerdesTest.<byte[]>roundTrip("bytes", bytes)).containsExactly(0, 1, 0xFF);
  }

  @Test
  void stringRoundTripsUnicode() {
    assertThat(SerdesTest.<String>roundTrip("string", "héllo, wörld ✓ 𝄞")).isEqualTo("héllo, wörld ✓ 𝄞");
    assertThat(SerdesTest.<String>roundTrip("string", "")).isEmpty();
    // Any object is written by its toString().
    assertThat(new StringSerde().toBytes(42L)).isEqualTo("42".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void longRoundTripsAsEightBigEndianBytes() {
    for (long v : new long[] {0, 1, -1, 255, 256, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L}) {
      assertThat(SerdesTest.<Long>roundTrip("long", v)).isEqualTo(v);
    }
    assertThat(new LongSerde().toBytes(0x0102030405060708L)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
  }

  @Test
  void integerRoundTripsAsFourBigEndianBytes() {
    for (int v : new int[] {0, 1, -1, 255, 256, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
      assertThat(SerdesTest.<Integer>roundTrip("integer", v)).isEqualTo(v);
    }
    assertThat(new IntegerSerde().toBytes(0x01020304)).containsExactly(1, 2, 3, 4);
  }

  @Test
  void jsonRoundTripsPlainValues() {
    Map<String, Object> value = Map.of("name", "ada", "n", 3, "tags", List.of("a", "b"));
    assertThat((Object) roundTrip("json", value)).isEqualTo(value);
    assertThat((Object) roundTrip("json", List.of(1, 2, 3))).isEqualTo(List.of(1, 2, 3));
  }

  @Test
  void jsonWithAClassRoundTripsThatClass() {
    Point p = new Point(3, -4, "here");
    assertThat((Object) roundTrip("json:" + Point.class.getName(), p)).isEqualTo(p);
  }

  @Test
  void serdeClassNameIsInstantiated() {
    Serde<?> serde = Serdes.byName("k", ReversedStringSerde.class.getName());
    assertThat(serde).isInstanceOf(ReversedStringSerde.class);
    assertThat(SerdesTest.<String>roundTrip(ReversedStringSerde.class.getName(), "abc")).isEqualTo("abc");
  }

  @Test
  void nullStaysNullInEverySerde() {
    for (String name : List.of("bytes", "string", "long", "integer", "json")) {
      @SuppressWarnings("unchecked")
      Serde<Object> serde = (Serde<Object>) Serdes.byName("k", name);
      assertThat(serde.toBytes(null)).as(name).isNull();
      assertThat(serde.fromBytes(null)).as(name).isNull();
    }
  }

  @Test
  void longFromSevenBytesIsAClearError() {
    assertThatThrownBy(() -> new LongSerde().fromBytes(new byte[7]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a long needs 8 bytes, got 7");
  }

  @Test
  void integerFromThreeBytesIsAClearError() {
    assertThatThrownBy(() -> new IntegerSerde().fromBytes(new byte[3]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an integer needs 4 bytes, got 3");
  }

  @Test
  void invalidUtf8IsAnErrorNotAReplacementCharacter() {
    byte[] invalid = {'o', 'k', (byte) 0xC3, (byte) 0x28};
    assertThatThrownBy(() -> new StringSerde().fromBytes(invalid))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not valid UTF-8")
        .hasMessageContaining("4 bytes");
    byte[] truncated = {(byte) 0xE2, (byte) 0x9C};
    assertThatThrownBy(() -> new StringSerde().fromBytes(truncated))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not valid UTF-8");
  }

  @Test
  void badJsonIsAClearError() {
    assertThatThrownBy(() -> new JsonSerde(Object.class)
        .fromBytes("{\"a\": ".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not valid JSON for Object");
    assertThatThrownBy(() -> new JsonSerde(Point.class)
        .fromBytes("[1, 2]".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not valid JSON for Point");
  }

  @Test
  void unknownSerdeNameNamesKeyValueAndWhatIsAllowed() {
    assertThatThrownBy(() -> Serdes.byName("streams.s.key.serde", "avro"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("streams.s.key.serde")
        .hasMessageContaining("'avro'")
        .hasMessageContaining(Serdes.ALLOWED);
    assertThatThrownBy(() -> Serdes.byName("streams.s.key.serde", "json:com.example.Nope"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'json:com.example.Nope'")
        .hasMessageContaining("no class com.example.Nope");
  }
}
