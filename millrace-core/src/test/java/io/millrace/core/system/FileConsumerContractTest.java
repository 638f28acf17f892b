package io.millrace.core.system;

import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.system.file.FileSystemFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** The consumer contract on file streams: a directory with a file per partition. */
class FileConsumerContractTest extends SystemConsumerContract {
  @TempDir Path tmp;

  @Override
  protected StreamSpec stream(String name, int partitions, int messages) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve(name));
    for (int p = 0; p < partitions; p++) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < messages; i++) {
        text.append('p').append(p).append('-').append(i).append('\n');
      }
      Files.writeString(dir.resolve(String.format("part-%05d", p)), text);
    }
    return new StreamSpec(name, dir.toString(), new StringSerde(), new StringSerde());
  }

  @Override
  protected SystemConsumer newConsumer() {
    return new FileSystemFactory().consumer(context("file", Map.of()));
  }
}
