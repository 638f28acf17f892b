package io.millrace.core.system.file;

import io.millrace.api.Envelope;
import io.millrace.api.Serde;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import io.millrace.core.system.MessageCounting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads files as bounded streams on the loop thread: each poll reads up to the asked number of
 * lines per partition and deserializes each with the stream's value serde. A line that does not
 * deserialize becomes an unreadable envelope, so the error policy applies at its offset.
 *
 * <p>Its offsets are byte positions, so it counts the lines it hands over ({@link
 * MessageCounting}): the status page shows rates and lag in messages, not in bytes.
 */
final class FileConsumer implements SystemConsumer, MessageCounting {
  private final SystemContext context;
  private Reader[] readers = new Reader[0];
  /** By index: what was handed over of each open file; read by other threads for display. */
  private volatile Tally[] tallies = new Tally[0];
  private Envelope[] scratch = new Envelope[0];
  private boolean started;

  /** One input file; {@code keySeparator} is null unless lines carry a key. */
  private record Reader(StreamSpec stream, int partition, Path file, StartPosition start,
      byte[] keySeparator, LineReader[] open) {}

  /**
   * Lines handed over from one file since it was opened, and the byte position after the last
   * of them: written by the loop thread once per batch, read racily by the status page.
   */
  private static final class Tally {
    /** The byte position the first line handed over starts at. */
    final long start;
    /** The file's size when it was opened: where the partition ends. */
    final long end;
    volatile long handed;
    volatile long position;

    Tally(long start, long end) {
      this.start = start;
      this.end = end;
      this.position = start;
    }
  }

  FileConsumer(SystemContext context) {
    this.context = context;
  }

  @Override
  public void register(int index, StreamSpec stream, int partition, StartPosition start) {
    if (readers.length <= index) {
      readers = Arrays.copyOf(readers, index + 1);
    }
    publish(index, null);
    Path file = FileStreams.inputFiles(stream.id(), Path.of(stream.physicalName())).get(partition);
    String separator = context.streamConfig(stream.id()).get(FileSystemFactory.KEY_SEPARATOR);
    readers[index] = new Reader(stream, partition, file, start,
        separator == null || separator.isEmpty() ? null
            : separator.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        new LineReader[1]);
    if (started) {
      open(index); // a partition added to a running container
    }
  }

  @Override
  public void unregister(int index) {
    if (index < readers.length && readers[index] != null) {
      close(readers[index]);
      readers[index] = null; // read on the loop thread: nothing is in transit
      publish(index, null);
    }
  }

  @Override
  public void start() {
    started = true;
    for (int index = 0; index < readers.length; index++) {
      if (readers[index] != null) {
        open(index);
      }
    }
  }

  private void open(int index) {
    Reader r = readers[index];
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
      publish(index, new Tally(reader.position(), Files.size(r.file())));
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
          count(index, n, reader.position());
        }
        if (more) {
          count(index, 0, reader.position()); // at the end: nothing remains
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

  /** Once per batch: the lines handed over and where the next one starts. */
  private void count(int index, int lines, long position) {
    Tally tally = tallies[index];
    if (tally != null) {
      tally.handed += lines; // one writer, the loop thread
      tally.position = position;
    }
  }

  /** Sets the tally of {@code index}, growing the array; the volatile write publishes it. */
  private void publish(int index, Tally tally) {
    Tally[] now = tallies;
    if (now.length <= index) {
      now = Arrays.copyOf(now, index + 1);
    }
    now[index] = tally;
    tallies = now;
  }

  private Tally tally(int index) {
    Tally[] now = tallies;
    return index < now.length ? now[index] : null;
  }

  @Override
  public long handedOver(int index) {
    Tally tally = tally(index);
    return tally == null ? 0 : tally.handed;
  }

  /** The bytes left at the mean length of the lines handed over so far (exact at the end: 0). */
  @Override
  public long remaining(int index) {
    Tally tally = tally(index);
    if (tally == null) {
      return -1;
    }
    long position = tally.position;
    long handed = tally.handed;
    long left = Math.max(0, tally.end - position);
    if (left == 0) {
      return 0;
    }
    if (handed == 0 || position <= tally.start) {
      return -1; // nothing read yet: no line length to go by
    }
    return Math.round(left * (double) handed / (position - tally.start));
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
