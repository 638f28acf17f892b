package io.millrace.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigurationDocTest {
  @Test
  void everyCoreKeyIsDocumentedInConfigurationMd() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
    for (ConfigKey key : CoreKeys.ALL) {
      assertThat(doc).as("docs/configuration.md documents %s", key.pattern())
          .contains("`" + key.pattern() + "`");
    }
  }
}
