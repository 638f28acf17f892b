package io.millrace.core.system.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A generated stream's keys ({@code streams.<id>.generator.*}) as a job file gives them. */
class GeneratorSpecTest {
  @Test
  void anySeedIsTakenNegativeOnesToo() {
    assertThat(GeneratorSpec.of("in", Map.of("generator.messages", "10",
        "generator.seed", "-7")).seed()).isEqualTo(-7);
  }

  @Test
  void aSeedThatIsNoIntegerIsNamedWithWhatIsAllowedAndNoBound() {
    assertThatThrownBy(() -> GeneratorSpec.of("in", Map.of("generator.messages", "10",
        "generator.seed", "abc")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("streams.in.generator.seed").hasMessageContaining("abc")
        .hasMessageContaining("an integer (the payloads' random seed")
        .hasMessageNotContaining("-9223372036854775808");
  }
}
