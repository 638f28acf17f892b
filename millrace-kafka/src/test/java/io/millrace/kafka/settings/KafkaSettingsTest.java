package io.millrace.kafka.settings;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.kafka.KafkaSystemFactory;
import org.junit.jupiter.api.Test;

class KafkaSettingsTest {
  @Test
  void theFactorysNameAsAJobMayWriteItIsTheFactorysClass() {
    assertThat(KafkaSettings.SYSTEM_FACTORY).isEqualTo(KafkaSystemFactory.class.getName());
  }
}
