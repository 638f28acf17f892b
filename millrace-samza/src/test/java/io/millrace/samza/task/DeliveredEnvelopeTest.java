package io.millrace.samza.task;

import static org.assertj.core.api.Assertions.assertThat;

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
    return DeliveredEnvelope.of(SSP, offset, key, message, 1, 0L, 0L);
  }

  @Test
  void itShowsWhatSamzasEnvelopeOfTheSameFieldsShows() {
    DeliveredEnvelope delivered =
        DeliveredEnvelope.of(SSP, 41L, "k", "v", 7, 1_700_000_000_000L, 1_700_000_000_123L);
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

  /**
   * Envelopes are copies of one prototype whose fields in Samza's class are never set, so every
   * method of Samza's envelope must read this class's fields: a Samza method not overridden
   * would answer with the prototype's.
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
    DeliveredEnvelope first = DeliveredEnvelope.of(SSP, 1L, "a", "x", 1, 10L, 100L);
    DeliveredEnvelope second = DeliveredEnvelope.of(SSP, 2L, "b", "y", 2, 20L, 200L);

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
