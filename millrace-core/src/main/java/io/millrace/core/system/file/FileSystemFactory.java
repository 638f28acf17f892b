package io.millrace.core.system.file;

import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import io.millrace.spi.system.SystemFactory;
import io.millrace.spi.system.SystemProducer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;

/**
 * The {@code file} system: line-oriented text files. Inputs are bounded (one partition per file,
 * offsets are byte positions); outputs are one file per partition, forced to disk at each commit.
 */
public final class FileSystemFactory implements SystemFactory {
  @Override
  public Set<String> systemKeys() {
    return Set.of();
  }

  /** Stream key: delete an output's existing files at start instead of appending to them. */
  static final String TRUNCATE = "file.truncate";
  /** Stream key: an input line's key is the text before this separator, its value the rest. */
  static final String KEY_SEPARATOR = "file.key.separator";

  @Override
  public Set<String> streamKeys() {
    return Set.of(TRUNCATE, KEY_SEPARATOR);
  }

  @Override
  public SystemAdmin admin(SystemContext context) {
    return new Admin(context);
  }

  @Override
  public SystemConsumer consumer(SystemContext context) {
    return new FileConsumer(context);
  }

  @Override
  public SystemProducer producer(SystemContext context) {
    return new FileProducer();
  }

  private static final class Admin implements SystemAdmin {
    private final SystemContext context;

    Admin(SystemContext context) {
      this.context = context;
    }

    @Override
    public int partitionCount(StreamSpec stream) {
      return FileStreams.inputFiles(stream.id(), Path.of(stream.physicalName())).size();
    }

    @Override
    public StreamMetadata metadata(StreamSpec stream, int partition) {
      List<Path> files = FileStreams.inputFiles(stream.id(), Path.of(stream.physicalName()));
      Path file = files.get(partition);
      try {
        long size = Files.size(file);
        long newest = lastLineStart(file, size);
        return new StreamMetadata(size == 0 ? -1 : 0, newest, size, true);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read input file " + file, e);
      }
    }

    /** The byte position of the last line's start, found by scanning back from the end. */
    private static long lastLineStart(Path file, long size) throws IOException {
      if (size == 0) {
        return -1;
      }
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
        ByteBuffer one = ByteBuffer.allocate(8192);
        long end = size;
        // Skip the final '\n' (if any): it ends the last line rather than starting a new one.
        long position = end - 1;
        boolean skippedFinal = false;
        while (position >= 0) {
          long start = Math.max(0, position - one.capacity() + 1);
          one.clear().limit((int) (position - start + 1));
          channel.read(one, start);
          for (int i = (int) (position - start); i >= 0; i--) {
            if (one.get(i) == '\n') {
              if (!skippedFinal && start + i == size - 1) {
                skippedFinal = true;
                continue;
              }
              return start + i + 1;
            }
          }
          position = start - 1;
        }
        return 0;
      }
    }

    @Override
    public int ensureOutput(StreamSpec stream, int partitions) {
      Path dir = Path.of(stream.physicalName());
      try {
        Files.createDirectories(dir);
        if ("true".equals(context.streamConfig(stream.id()).get(TRUNCATE))) {
          for (int p = 0; p < partitions; p++) {
            Files.deleteIfExists(FileStreams.outputFile(dir, p));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create output directory " + stream.physicalName()
            + " of stream " + stream.id(), e);
      }
      return partitions;
    }
  }
}
