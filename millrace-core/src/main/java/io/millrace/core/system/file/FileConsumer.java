package io.millrace.core.system.file;

import io.millrace.api.Envelope;
import io.millrace.api.Serde;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads files as bounded streams on the loop thread: each poll reads up to the asked number of
 * lines per partition and deserializes each with the stream's value serde. A line that does not
 * deserialize becomes an unreadable envelope, so the error policy applies at its offset.
 */
final class FileConsumer implements SystemConsumer {
  private final SystemContext context;
  private Reader[] readers = new Reader[0];
  private Envelope[] scratch = new Envelope[0];
  private boolean started;

  /** One input file; {@code keySeparator} is null unless lines carry a key. */
  private record Reader(StreamSpec stream, int partition, Path file, StartPosition start,
      byte[] keySeparator, LineReader[] open) {}

  FileConsumer(SystemContext context) {
    this.context = context;
  }

  @Override
  public void register(int index, StreamSpec stream, int partition, StartPosition start) {
    if (readers.length <= index) {
      readers = Arrays.copyOf(readers, index + 1);
    }
    Path file = FileStreams.inputFiles(stream.id(), Path.of(stream.physicalName())).get(partition);
    String separator = context.streamConfig(stream.id()).get(FileSystemFactory.KEY_SEPARATOR);
    readers[index] = new Reader(stream, partition, file, start,
        separator == null || separator.isEmpty() ? null
            : separator.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        new LineReader[1]);
    if (started) {
      open(readers[index]); // a partition added to a running container
    }
  }

  @Override
  public void unregister(int index) {
    if (index < readers.length && readers[index] != null) {
      close(readers[index]);
      readers[index] = null; // read on the loop thread: nothing is in transit
    }
  }

  @Override
  public void start() {
    started = true;
    for (Reader r : readers) {
      if (r != null) {
        open(r);
      }
    }
  }

  private static void open(Reader r) {
    try {
      StartPosition start = r.start();
      long position = switch (start.kind()) {
        case AFTER -> start.offset();
        case OLDEST -> 0;
        case UPCOMING -> Files.size(r.file());
      };
      LineReader reader = new LineReader(r.file(), position);
      if (start.kind() == StartPosition.Kind.AFTER) {
        reader.next(); // skip the line at the checkpointed offset: it was processed
      }
      r.open()[0] = reader;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open input file " + r.file() + " of stream "
          + r.stream().id(), e);
    }
  }

  @Override
  public int poll(int[] indices, int count, int maxMessages, BatchSink sink, long timeoutMillis) {
    if (scratch.length < maxMessages) {
      scratch = new Envelope[maxMessages];
    }
    int handed = 0;
    for (int i = 0; i < count; i++) {
      int index = indices[i];
      Reader r = readers[index];
      if (r == null || r.open()[0] == null) {
        continue;
      }
      LineReader reader = r.open()[0];
      @SuppressWarnings("unchecked")
      Serde<Object> serde = (Serde<Object>) r.stream().valueSerde();
      @SuppressWarnings("unchecked")
      Serde<Object> keySerde = (Serde<Object>) r.stream().keySerde();
      int n = 0;
      try {
        boolean more;
        while ((more = n < maxMessages) && reader.next()) {
          byte[] bytes = reader.lineBytes();
          long offset = reader.lineStart();
          byte[] keyBytes = null;
          byte[] valueBytes = bytes;
          if (r.keySeparator() != null) {
            int at = indexOf(bytes, r.keySeparator());
            if (at >= 0) {
              keyBytes = Arrays.copyOfRange(bytes, 0, at);
              valueBytes = Arrays.copyOfRange(bytes, at + r.keySeparator().length, bytes.length);
            }
          }
          Envelope e;
          try {
            e = new Envelope(r.stream().id(), r.partition(), offset,
                keyBytes == null ? null : keySerde.fromBytes(keyBytes), serde.fromBytes(valueBytes),
                -1, bytes.length);
          } catch (RuntimeException bad) {
            e = Envelope.unreadable(r.stream().id(), r.partition(), offset, keyBytes, valueBytes, -1,
                bytes.length, new IllegalArgumentException("file " + reader.file() + " byte "
                    + offset + ": " + bad.getMessage(), bad));
          }
          scratch[n++] = e;
        }
        if (n > 0) {
          sink.accept(index, scratch, 0, n);
          Arrays.fill(scratch, 0, n, null);
          handed += n;
        }
        if (more) {
          reader.close();
          r.open()[0] = null;
          sink.endOfStream(index);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read input file " + reader.file(), e);
      }
    }
    return handed;
  }

  /** The first position of {@code separator} in {@code line}, or -1. */
  private static int indexOf(byte[] line, byte[] separator) {
    outer:
    for (int i = 0; i + separator.length <= line.length; i++) {
      for (int j = 0; j < separator.length; j++) {
        if (line[i + j] != separator[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Override
  public void stop() {
    for (Reader r : readers) {
      if (r != null) {
        close(r);
      }
    }
  }

  private static void close(Reader r) {
    if (r.open()[0] != null) {
      try {
        r.open()[0].close();
      } catch (IOException ignored) {
        // Read-only file: nothing is lost by a failed close.
      }
      r.open()[0] = null;
    }
  }
}
