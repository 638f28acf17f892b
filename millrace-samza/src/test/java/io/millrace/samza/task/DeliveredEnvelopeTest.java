package io.millrace.samza.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.samza.Partition;
import org.apache.samza.system.DrainMessage;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;
import org.apache.samza.system.WatermarkMessage;
import org.junit.jupiter.api.Test;

class DeliveredEnvelopeTest {
  private static final SystemStreamPartition SSP =
      new SystemStreamPartition("kafka", "page-views", new Partition(3));

  private static DeliveredEnvelope delivered(long offset, Object key, Object message) {
    return delivered(offset, key, message, 1, -1L, 0L);
  }

  /** The envelope of a message Millrace delivered with these fields ({@code -1}: no time). */
  private static DeliveredEnvelope delivered(long offset, Object key, Object message, int size,
      long timestamp, long arrivalTime) {
    return DeliveredEnvelope.of(new Envelope("page-views-id", 3, offset, key, message, timestamp,
        size), p -> p == 3 ? SSP : null, arrivalTime);
  }

  @Test
  void itShowsWhatSamzasEnvelopeOfTheSameFieldsShows() {
    DeliveredEnvelope delivered =
        delivered(41L, "k", "v", 7, 1_700_000_000_000L, 1_700_000_000_123L);
    IncomingMessageEnvelope samzas = new IncomingMessageEnvelope(SSP, "41", "k", "v", 7,
        1_700_000_000_000L, 1_700_000_000_123L);

    assertThat(delivered.getOffset()).isEqualTo("41");
    assertThat(delivered.getSystemStreamPartition()).isEqualTo(SSP);
    assertThat(delivered.getKey()).isEqualTo("k");
    assertThat(delivered.getMessage()).isEqualTo("v");
    assertThat(delivered.getSize()).isEqualTo(7);
    assertThat(delivered.getEventTime()).isEqualTo(1_700_000_000_000L);
    assertThat(delivered.getArrivalTime()).isEqualTo(1_700_000_000_123L);
    assertThat(delivered.isEndOfStream()).isFalse();
    assertThat(delivered.isDrain()).isFalse();
    assertThat(delivered.isWatermark()).isFalse();
    assertThat(delivered.hashCode()).isEqualTo(samzas.hashCode());
    assertThat(delivered.toString()).isEqualTo(samzas.toString());
  }

  @Test
  void itsKeyBucketsAreSamzas() {
    for (int factor = 0; factor <= 5; factor++) {
      assertThat(delivered(41L, "k", "v").getSystemStreamPartition(factor))
          .isEqualTo(new IncomingMessageEnvelope(SSP, "41", "k", "v")
              .getSystemStreamPartition(factor));
      assertThat(delivered(41L, null, "v").getSystemStreamPartition(factor)) // by the offset
          .isEqualTo(new IncomingMessageEnvelope(SSP, "41", null, "v")
              .getSystemStreamPartition(factor));
    }
  }

  @Test
  void aDrainOrWatermarkMessageIsToldAsSamzaTellsIt() {
    assertThat(delivered(1L, null, new DrainMessage("run-1")).isDrain()).isTrue();
    assertThat(delivered(1L, null, new WatermarkMessage(5L)).isWatermark()).isTrue();
  }

  @Test
  void withoutAnEventTimeItsEventTimeIsSamzasNone() {
    assertThat(delivered(1L, "k", "v", 1, -1L, 5L).getEventTime()).isZero();
  }

  @Test
  void aDecodedEnvelopeShowsTheSerdesObjectsNotTheBytesMillraceRead() {
    Envelope read = new Envelope("page-views-id", 3, 9L, new byte[] {1}, new byte[] {2}, -1L, 2);
    DeliveredEnvelope decoded =
        DeliveredEnvelope.decoded(read, p -> SSP, "key", "message", 5L);

    assertThat(decoded.getKey()).isEqualTo("key");
    assertThat(decoded.getMessage()).isEqualTo("message");
    assertThat(decoded.getOffset()).isEqualTo("9");
    assertThat(decoded.getSize()).isEqualTo(2);
    assertThat(decoded).isEqualTo(DeliveredEnvelope.decoded(read, p -> SSP, "key", "message", 6L))
        .isNotEqualTo(delivered(9L, "key", "other"));
  }

  /**
   * Envelopes are made without Samza's constructor, so the fields of Samza's class are never
   * set: every method of Samza's envelope must read this class's own, and one not overridden
   * would answer null.
   */
  @Test
  void everyPublicMethodOfSamzasEnvelopeIsOverridden() {
    List<String> notOverridden = Arrays.stream(IncomingMessageEnvelope.class.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
        .filter(m -> !declaredBy(DeliveredEnvelope.class, m))
        .map(Method::getName)
        .collect(Collectors.toList());

    assertThat(notOverridden).isEmpty();
  }

  private static boolean declaredBy(Class<?> type, Method method) {
    try {
      return type.getDeclaredMethod(method.getName(), method.getParameterTypes()) != null;
    } catch (NoSuchMethodException absent) {
      return false;
    }
  }

  @Test
  void envelopesAreDistinctObjectsThatKeepTheirOwnFields() {
    DeliveredEnvelope first = delivered(1L, "a", "x", 1, 10L, 100L);
    DeliveredEnvelope second = delivered(2L, "b", "y", 2, 20L, 200L);

    assertThat(first).isNotSameAs(second);
    assertThat(first.getOffset()).isEqualTo("1");
    assertThat(first.getKey()).isEqualTo("a");
    assertThat(first.getMessage()).isEqualTo("x");
    assertThat(first.getSize()).isEqualTo(1);
    assertThat(first.getEventTime()).isEqualTo(10L);
    assertThat(first.getArrivalTime()).isEqualTo(100L);
    assertThat(second.getOffset()).isEqualTo("2");
    assertThat(second.getArrivalTime()).isEqualTo(200L);
  }

  @Test
  void envelopesOfTheSameMessageAreEqualAndOfAnotherOffsetAreNot() {
    DeliveredEnvelope one = delivered(5L, "k", "v");

    assertThat(one).isEqualTo(delivered(5L, "k", "v"))
        .hasSameHashCodeAs(delivered(5L, "k", "v"))
        .isNotEqualTo(delivered(6L, "k", "v"))
        .isNotEqualTo(delivered(5L, "k", "w"));
  }
}
