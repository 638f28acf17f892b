package io.millrace.core.system.file;

import io.millrace.api.Serde;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes output streams as text files, one per partition ({@code <dir>/part-00000}, ...), a line
 * per message: {@code value}, or {@code key TAB value} when the key is not null. Files are opened
 * for append, so a restart adds to what earlier runs committed; a commit forces them to disk.
 */
final class FileProducer implements SystemProducer {
  private final List<Output> outputs = new ArrayList<>();

  private static final class Output {
    final StreamSpec stream;
    final Path dir;
    final FileChannel[] files;
    final ByteBuffer[] buffers;
    int roundRobin;

    Output(StreamSpec stream, int partitions) {
      this.stream = stream;
      this.dir = Path.of(stream.physicalName());
      this.files = new FileChannel[partitions];
      this.buffers = new ByteBuffer[partitions];
    }
  }

  @Override
  public void register(int index, StreamSpec stream, int partitionCount) {
    while (outputs.size() <= index) {
      outputs.add(null);
    }
    outputs.set(index, new Output(stream, partitionCount));
  }

  @Override
  public void start() {}

  @Override
  @SuppressWarnings("unchecked")
  public void send(int index, int partition, Object key, Object value, long timestamp) {
    Output out = outputs.get(index);
    if (partition >= out.files.length) {
      throw new IllegalArgumentException("output stream " + out.stream.id() + " (" + out.dir
          + ") has " + out.files.length + " partitions: there is no partition " + partition);
    }
    int p = partition >= 0 ? partition
        : key == null ? (out.roundRobin = (out.roundRobin + 1) % out.files.length)
        : Math.floorMod(key.hashCode(), out.files.length);
    byte[] valueBytes = ((Serde<Object>) out.stream.valueSerde()).toBytes(value);
    byte[] keyBytes = key == null ? null : ((Serde<Object>) out.stream.keySerde()).toBytes(key);
    int length = (keyBytes == null ? 0 : keyBytes.length + 1)
        + (valueBytes == null ? 0 : valueBytes.length) + 1;
    ByteBuffer buffer = buffer(out, p, length);
    if (keyBytes != null) {
      buffer.put(keyBytes).put((byte) '\t');
    }
    if (valueBytes != null) {
      buffer.put(valueBytes);
    }
    buffer.put((byte) '\n');
  }

  private ByteBuffer buffer(Output out, int p, int length) {
    ByteBuffer buffer = out.buffers[p];
    if (buffer == null) {
      buffer = ByteBuffer.allocate(Math.max(64 * 1024, length));
      out.buffers[p] = buffer;
    }
    if (buffer.remaining() < length) {
      write(out, p);
      if (buffer.capacity() < length) {
        buffer = ByteBuffer.allocate(length);
        out.buffers[p] = buffer;
      }
    }
    return buffer;
  }

  private void write(Output out, int p) {
    ByteBuffer buffer = out.buffers[p];
    try {
      if (out.files[p] == null) {
        Files.createDirectories(out.dir);
        out.files[p] = FileChannel.open(FileStreams.outputFile(out.dir, p),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
      }
      buffer.flip();
      while (buffer.hasRemaining()) {
        out.files[p].write(buffer);
      }
      buffer.clear();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write output stream " + out.stream.id() + " to "
          + FileStreams.outputFile(out.dir, p), e);
    }
  }

  @Override
  public void flush() {
    for (Output out : outputs) {
      if (out == null) {
        continue;
      }
      for (int p = 0; p < out.files.length; p++) {
        if (out.buffers[p] != null && out.buffers[p].position() > 0) {
          write(out, p);
        }
        if (out.files[p] != null) {
          try {
            out.files[p].force(false);
          } catch (IOException e) {
            throw new UncheckedIOException("cannot force output file "
                + FileStreams.outputFile(out.dir, p) + " to disk", e);
          }
        }
      }
    }
  }

  @Override
  public void stop() {
    flush();
    for (Output out : outputs) {
      if (out == null) {
        continue;
      }
      for (FileChannel file : out.files) {
        if (file != null) {
          try {
            file.close();
          } catch (IOException ignored) {
            // Flushed and forced above: nothing is lost by a failed close.
          }
        }
      }
    }
  }
}
