package io.millrace.samza.task;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.samza.Partition;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;
import org.junit.jupiter.api.Test;

class DeliveredEnvelopeTest {
  private static final SystemStreamPartition SSP =
      new SystemStreamPartition("kafka", "page-views", new Partition(3));

  @Test
  void itShowsWhatSamzasEnvelopeOfTheSameFieldsShows() {
    DeliveredEnvelope delivered = new DeliveredEnvelope(SSP, 41L, "k", "v", 7, 1_700_000_000_000L);
    IncomingMessageEnvelope samzas =
        new IncomingMessageEnvelope(SSP, "41", "k", "v", 7, 1_700_000_000_000L, 0L);

    assertThat(delivered.getOffset()).isEqualTo("41");
    assertThat(delivered.getSystemStreamPartition()).isEqualTo(SSP);
    assertThat(delivered.getKey()).isEqualTo("k");
    assertThat(delivered.getMessage()).isEqualTo("v");
    assertThat(delivered.getSize()).isEqualTo(7);
    assertThat(delivered.getEventTime()).isEqualTo(1_700_000_000_000L);
    assertThat(delivered.isEndOfStream()).isFalse();
    assertThat(delivered.hashCode()).isEqualTo(samzas.hashCode());
    assertThat(delivered.toString()).isEqualTo(samzas.toString()
        .replace("arrivalTime=0", "arrivalTime=" + delivered.getArrivalTime()));
  }

  @Test
  void itsArrivalTimeIsTheMomentItWasMade() {
    long before = System.currentTimeMillis();
    DeliveredEnvelope delivered = new DeliveredEnvelope(SSP, 0L, null, "v", 1, 0L);
    long after = System.currentTimeMillis();

    assertThat(delivered.getArrivalTime()).isBetween(before, after);
  }

  @Test
  void envelopesOfTheSameMessageAreEqualAndOfAnotherOffsetAreNot() {
    DeliveredEnvelope one = new DeliveredEnvelope(SSP, 5L, "k", "v", 1, 0L);

    assertThat(one).isEqualTo(new DeliveredEnvelope(SSP, 5L, "k", "v", 1, 0L))
        .hasSameHashCodeAs(new DeliveredEnvelope(SSP, 5L, "k", "v", 1, 0L))
        .isNotEqualTo(new DeliveredEnvelope(SSP, 6L, "k", "v", 1, 0L))
        .isNotEqualTo(new DeliveredEnvelope(SSP, 5L, "k", "w", 1, 0L));
  }
}
