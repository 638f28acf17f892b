package io.millrace.core.system;

import io.millrace.api.Headers;
import io.millrace.api.Serde;
import io.millrace.core.system.file.FileSystemFactory;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/**
 * The producer contract on file outputs: a directory with a text file per partition
 * ({@code part-00000}, ...), a line per message, {@code key TAB value} or the value alone. Files
 * have no offsets, timestamps or headers.
 */
class FileProducerContractTest extends SystemProducerContract {
  @TempDir Path tmp;

  @Override
  protected StreamSpec output(String name, int partitions, Serde<?> keySerde,
      Serde<?> valueSerde) {
    return new StreamSpec(name, tmp.resolve(name).toString(), keySerde, valueSerde);
  }

  @Override
  protected SystemProducer newProducer() {
    return new FileSystemFactory().producer(context("file", Map.of()));
  }

  @Override
  protected List<Written> read(StreamSpec stream, int partition) throws Exception {
    Path file = Path.of(stream.physicalName()).resolve(String.format("part-%05d", partition));
    List<Written> written = new ArrayList<>();
    if (!Files.exists(file)) {
      return written;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int tab = line.indexOf('\t');
      written.add(tab < 0 ? new Written(-1, null, line, -1, Headers.EMPTY)
          : new Written(-1, line.substring(0, tab), line.substring(tab + 1), -1, Headers.EMPTY));
    }
    return written;
  }

  @Override
  protected boolean hasOffsets() {
    return false;
  }

  @Override
  protected boolean carriesHeadersAndTimestamps() {
    return false;
  }

  @Override
  protected boolean serializes() {
    return true;
  }
}
