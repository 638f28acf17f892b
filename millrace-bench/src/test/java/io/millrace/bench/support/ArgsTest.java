package io.millrace.bench.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.bench.kafka.KafkaBench;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A benchmark's options are checked before it starts any work. */
class ArgsTest {
  @Test
  void anUnknownOptionIsRefusedNamingItAndTheKnownOnes() {
    Args args = new Args(new String[] {"--records", "10", "--mode", "raw"}, 0);
    assertThatThrownBy(() -> args.only("records", "modes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--mode").hasMessageContaining("known: [--modes, --records]");
  }

  @Test
  void aListOptionRefusesValuesOutsideTheAllowedOnes() {
    Args args = new Args(new String[] {"--modes", "raw,consum"}, 0);
    assertThatThrownBy(() -> args.getList("modes", "raw", List.of("raw", "consume")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--modes").hasMessageContaining("[consum]")
        .hasMessageContaining("allowed: raw,consume");
    assertThat(new Args(new String[0], 0).getList("modes", "raw, consume",
        List.of("raw", "consume"))).containsExactly("raw", "consume");
  }

  @Test
  void theKafkaBenchmarkRefusesAMisspeltModeBeforeStartingABroker() {
    // No broker is started and no topic loaded: the options fail first, within milliseconds.
    assertThatThrownBy(() -> KafkaBench.main(new String[] {"--modes", "passthru"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("passthru");
  }

  @Test
  void settingsAreKeyValuePairsAndAnItemWithoutAKeyIsRefusedNamingIt() {
    assertThat(new Args(new String[] {"--set", "a.b=1,c=x=y"}, 0).getSettings("set"))
        .containsExactly(java.util.Map.entry("a.b", "1"), java.util.Map.entry("c", "x=y"));
    assertThat(new Args(new String[0], 0).getSettings("set")).isEmpty();
    assertThatThrownBy(() -> new Args(new String[] {"--set", "a=1,task.commit.ms"}, 0)
        .getSettings("set")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--set").hasMessageContaining("'task.commit.ms'");
  }
}
