package io.millrace.kafka.coordinate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A process's status record: round trip, and damaged records named as such. */
class ProcessStatusTest {
  @Test
  void roundTrips() {
    ProcessStatus status = new ProcessStatus("pod-1", "host-a", 42, 1_000, 2_000, Map.of(
        0, new ProcessStatus.Container(Set.of(0, 3), 1_500, 40, 5, 700, Set.of(3), Set.of(), Set.of(),
            Map.of(1, 12L, 5, -1L)),
        1, ProcessStatus.Container.idle()));
    assertThat(ProcessStatus.decode(status.encode())).isEqualTo(status);
  }

  @Test
  void aRecordOfAProcessThatKeepsNoStandbyFieldReadsAsNoStandbys() {
    byte[] older = ("millrace-status 1\nprocess\tp\th\t1\t2\t3\n"
        + "container\t0\t1,2\t5\t6\t7\t8\t2\t-\t-\n").getBytes(StandardCharsets.UTF_8);
    assertThat(ProcessStatus.decode(older).containers().get(0).standbys()).isEmpty();
  }

  @Test
  void aDamagedRecordIsAClearError() {
    assertThatThrownBy(() -> ProcessStatus.decode("hello".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a Millrace status");
    byte[] cut = "millrace-status 1\nprocess\tp\th\t1\t2\t3\ncontainer\t0\t1,2\t5\n"
        .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ProcessStatus.decode(cut))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("damaged status record");
  }
}
