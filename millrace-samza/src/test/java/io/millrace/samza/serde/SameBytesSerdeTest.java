package io.millrace.samza.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.config.JobConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.samza.serializers.LongSerde;
import org.apache.samza.serializers.StringSerde;
import org.junit.jupiter.api.Test;

class SameBytesSerdeTest {
  private static SameBytesSerde of(String name, String... keysAndValues) {
    Map<String, String> config = new HashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      config.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return SameBytesSerde.of(new JobConfig(config, "a test job"), name);
  }

  @Test
  void samzasStringAndLongSerdesHaveMillracesTwinsPredefinedOrRegistered() {
    assertThat(of("string")).isEqualTo(SameBytesSerde.STRING);
    assertThat(of("long")).isEqualTo(SameBytesSerde.LONG);
    assertThat(of("keys", "serializers.registry.keys.class",
        "org.apache.samza.serializers.StringSerdeFactory")).isEqualTo(SameBytesSerde.STRING);
    assertThat(of("counts", "serializers.registry.counts.class",
        "org.apache.samza.serializers.LongSerdeFactory")).isEqualTo(SameBytesSerde.LONG);
    assertThat(of("string", "encoding", "utf8")).isEqualTo(SameBytesSerde.STRING);
    assertThat(SameBytesSerde.STRING.millraceName()).isEqualTo("string");
    assertThat(SameBytesSerde.LONG.millraceName()).isEqualTo("long");
  }

  @Test
  void otherSerdesOtherEncodingsAndSerializedInstancesHaveNone() {
    assertThat(of(null)).isNull();
    assertThat(of("integer")).isNull();
    assertThat(of("json")).isNull();
    assertThat(of("string", "encoding", "UTF-16")).isNull();
    assertThat(of("string", "serializers.registry.string.class", "com.example.MyStringSerdeFactory"))
        .isNull();
    assertThat(of("string", "serializers.registry.string.samza.serialized.instance", "rO0AB"))
        .isNull();
  }

  /** The premise: Millrace's twin makes Samza's bytes and reads them back, on generated data. */
  @Test
  void millracesTwinsWriteAndReadSamzasBytes() {
    Random random = new Random(34);
    StringSerde samzaString = new StringSerde();
    io.millrace.core.serde.StringSerde millraceString = new io.millrace.core.serde.StringSerde();
    LongSerde samzaLong = new LongSerde();
    io.millrace.core.serde.LongSerde millraceLong = new io.millrace.core.serde.LongSerde();
    for (int i = 0; i < 10_000; i++) {
      StringBuilder text = new StringBuilder();
      for (int c = random.nextInt(20); c > 0; c--) {
        // ASCII, Latin-1, other BMP (no lone surrogates: Samza's getBytes would replace them)
        // and supplementary code points
        int kind = random.nextInt(4);
        text.appendCodePoint(kind == 0 ? 32 + random.nextInt(95)
            : kind == 1 ? 0xA0 + random.nextInt(0x60)
            : kind == 2 ? 0x4E00 + random.nextInt(0x5000)
            : 0x1F300 + random.nextInt(0x300));
      }
      String s = text.toString();
      byte[] samzaBytes = samzaString.toBytes(s);
      assertThat(millraceString.toBytes(s)).isEqualTo(samzaBytes);
      assertThat(millraceString.fromBytes(samzaBytes)).isEqualTo(samzaString.fromBytes(samzaBytes));

      long n = i < 4 ? new long[] {0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE}[i] : random.nextLong();
      byte[] samzaLongBytes = samzaLong.toBytes(n);
      assertThat(millraceLong.toBytes(n)).isEqualTo(samzaLongBytes);
      assertThat(millraceLong.fromBytes(samzaLongBytes)).isEqualTo(samzaLong.fromBytes(samzaLongBytes));
    }
  }
}
