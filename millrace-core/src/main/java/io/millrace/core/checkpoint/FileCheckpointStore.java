package io.millrace.core.checkpoint;
import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * Checkpoints in files, one per container: {@code <dir>/container-<id>.checkpoint}.
 *
 * <p>Layout (UTF-8 text, one record per line, fields separated by tabs):
 *
 * <pre>
 * millrace-checkpoint 1
 * written &lt;time&gt;
 * &lt;system&gt; TAB &lt;stream&gt; TAB &lt;partition&gt; TAB &lt;offset&gt; [TAB &lt;time&gt;]   (one line per partition)
 * end &lt;record count&gt; &lt;crc32 of everything above, hex&gt;
 * </pre>
 *
 * <p>A time is in epoch microseconds, strictly increasing over the writes of one process (files
 * of earlier versions hold epoch milliseconds, which are smaller, as they are older). A record with
 * its own time was carried over from the container's earlier layout: it keeps the time it was
 * checkpointed at.
 *
 * <p>A write goes to a temporary file, is forced to disk, then renamed over the old one (and the
 * directory is forced), so a crash leaves either the old checkpoint or the new one, never half of
 * one. A file that does not parse or whose CRC does not match is an error naming the file: the job
 * never silently restarts from the beginning.
 *
 * <p>When the container count changes, a partition may appear in several files; the newest
 * time wins. A writer whose container held partitions that it no longer holds keeps their records
 * in its file, with their times, until another container's file has a newer one: a container that
 * commits before the partitions' new container has committed them leaves their checkpoints as they
 * were (a crash in between would otherwise restart them from {@code streams.<id>.offset.default}).
 */
public final class FileCheckpointStore implements CheckpointStore {
  private static final String MAGIC = "millrace-checkpoint 1";
  /**
   * The time of the last write in this process (epoch micros): each write's is later, so that of
   * two writes of a partition by two containers the later wins even within a millisecond.
   */
  private static final AtomicLong LAST_WRITTEN = new AtomicLong();
  private final Path dir;

  /** A store in {@code dir} (created when first written). */
  public FileCheckpointStore(Path dir) {
    this.dir = dir;
  }

  /** The file of one container. */
  public Path file(int containerId) {
    return dir.resolve("container-" + containerId + ".checkpoint");
  }

  /** A partition's newest record: its offset, when it was checkpointed, and in which file. */
  private record Entry(long offset, long written, Path file) {}

  @Override
  public Map<StreamPartition, Long> read() {
    Map<StreamPartition, Long> offsets = new HashMap<>();
    readEntries().forEach((partition, entry) -> offsets.put(partition, entry.offset()));
    return offsets;
  }

  /** The newest record of every partition, over every container's file. */
  private Map<StreamPartition, Entry> readEntries() {
    Map<StreamPartition, Entry> entries = new HashMap<>();
    if (!Files.isDirectory(dir)) {
      return entries;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "container-*.checkpoint")) {
      for (Path file : files) {
        readFile(file, entries);
      }
    } catch (IOException e) {
      throw new CheckpointException("cannot list checkpoints in " + dir + ": " + e, e);
    }
    return entries;
  }

  private static void readFile(Path file, Map<StreamPartition, Entry> entries) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new CheckpointException("cannot read checkpoint " + file + ": " + e, e);
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    int endLine = text.lastIndexOf("\nend ");
    if (!text.startsWith(MAGIC + "\n") || endLine < 0 || !text.endsWith("\n")) {
      throw corrupt(file, "it is not a complete Millrace checkpoint (header or end line missing)");
    }
    String[] end = text.substring(endLine + 1, text.length() - 1).split(" ");
    CRC32 crc = new CRC32();
    // The CRC covers the bytes before the end line; endLine counts chars, which differ from bytes
    // once a stream or system name is not ASCII.
    int endLineBytes = text.substring(endLine + 1).getBytes(StandardCharsets.UTF_8).length;
    crc.update(bytes, 0, Math.max(0, bytes.length - endLineBytes));
    if (end.length != 3 || !end[2].equals(Long.toHexString(crc.getValue()))) {
      throw corrupt(file, "its checksum does not match its content");
    }
    String[] lines = text.substring(0, endLine).split("\n");
    if (lines.length < 2 || !lines[1].startsWith("written ")) {
      throw corrupt(file, "line 2 should be 'written <millis>'");
    }
    long written = parse(file, 2, lines[1].substring(8));
    int records = lines.length - 2;
    if (records != parse(file, lines.length + 1, end[1])) {
      throw corrupt(file, "the end line counts " + end[1] + " records, the file has " + records);
    }
    for (int i = 2; i < lines.length; i++) {
      String[] fields = lines[i].split("\t");
      if (fields.length != 4 && fields.length != 5) {
        throw corrupt(file, "line " + (i + 1) + " should have 4 tab-separated fields (5 with "
            + "its own time): " + lines[i]);
      }
      StreamPartition partition = new StreamPartition(
          fields[0], fields[1], (int) parse(file, i + 1, fields[2]));
      long offset = parse(file, i + 1, fields[3]);
      long at = fields.length == 5 ? parse(file, i + 1, fields[4]) : written;
      Entry previous = entries.get(partition);
      if (previous == null || previous.written() <= at) {
        entries.put(partition, new Entry(offset, at, file));
      }
    }
  }

  private static long parse(Path file, int line, String number) {
    try {
      return Long.parseLong(number);
    } catch (NumberFormatException e) {
      throw corrupt(file, "line " + line + ": '" + number + "' is not a number");
    }
  }

  private static CheckpointException corrupt(Path file, String what) {
    return new CheckpointException("checkpoint " + file + " is corrupt: " + what
        + ". Fix or remove it (removing it restarts the partitions from streams.<id>.offset.default)");
  }

  @Override
  public CheckpointWriter writer(int containerId, List<StreamPartition> partitions) {
    return new Writer(file(containerId), partitions, carried(file(containerId), partitions));
  }

  /** Records a writer writes again with every checkpoint, as encoded lines. */
  private record Carried(byte[] lines, int count) {}

  /**
   * The records of a container's file that its new layout does not hold and no other file has a
   * newer record of, as lines with their own times.
   */
  private Carried carried(Path file, List<StreamPartition> partitions) {
    if (!Files.exists(file)) {
      return new Carried(new byte[0], 0);
    }
    Set<StreamPartition> held = new HashSet<>(partitions);
    StringBuilder lines = new StringBuilder();
    int count = 0;
    for (Map.Entry<StreamPartition, Entry> e : readEntries().entrySet()) {
      StreamPartition p = e.getKey();
      if (e.getValue().file().equals(file) && !held.contains(p)) {
        lines.append(p.system()).append('\t').append(p.stream()).append('\t')
            .append(p.partition()).append('\t').append(e.getValue().offset()).append('\t')
            .append(e.getValue().written()).append('\n');
        count++;
      }
    }
    return new Carried(lines.toString().getBytes(StandardCharsets.UTF_8), count);
  }

  /** Now in epoch microseconds, later than every earlier write of this process. */
  private static long nextWrittenTime() {
    long now = System.currentTimeMillis() * 1_000;
    return LAST_WRITTEN.updateAndGet(last -> Math.max(last + 1, now));
  }

  /**
   * Writes one container's file. The per-partition prefix bytes are encoded once, and one byte
   * array is reused for every write, so the garbage of a checkpoint does not grow with the number
   * of partitions (the Kafka checkpoint lesson).
   */
  private final class Writer implements CheckpointWriter {
    private final Path target;
    private final Path temp;
    private final byte[][] prefixes;
    private final Carried carried;
    private final CRC32 crc = new CRC32();
    private byte[] buffer = new byte[4096];
    private int length;

    Writer(Path target, List<StreamPartition> partitions, Carried carried) {
      this.target = target;
      this.carried = carried;
      this.temp = target.resolveSibling(target.getFileName() + ".tmp");
      prefixes = new byte[partitions.size()][];
      for (int i = 0; i < prefixes.length; i++) {
        StreamPartition p = partitions.get(i);
        prefixes[i] = (p.system() + "\t" + p.stream() + "\t" + p.partition() + "\t")
            .getBytes(StandardCharsets.UTF_8);
      }
    }

    @Override
    public void write(long[] offsets) {
      length = 0;
      append(MAGIC_LINE);
      append(WRITTEN);
      appendLong(nextWrittenTime());
      appendByte('\n');
      int records = 0;
      for (int i = 0; i < prefixes.length; i++) {
        if (offsets[i] != NONE) {
          append(prefixes[i]);
          appendLong(offsets[i]);
          appendByte('\n');
          records++;
        }
      }
      append(carried.lines());
      records += carried.count();
      crc.reset();
      crc.update(buffer, 0, length);
      append(END);
      appendLong(records);
      appendByte(' ');
      appendHex(crc.getValue());
      appendByte('\n');
      try {
        Files.createDirectories(dir);
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE,
            StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
          ByteBuffer out = ByteBuffer.wrap(buffer, 0, length);
          while (out.hasRemaining()) {
            channel.write(out);
          }
          channel.force(true);
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
          directory.force(true); // make the rename itself durable
        }
      } catch (IOException e) {
        throw new CheckpointException("cannot write checkpoint " + target + ": " + e, e);
      }
    }

    private void ensure(int more) {
      if (length + more > buffer.length) {
        buffer = java.util.Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + more));
      }
    }

    private void append(byte[] bytes) {
      ensure(bytes.length);
      System.arraycopy(bytes, 0, buffer, length, bytes.length);
      length += bytes.length;
    }

    private void appendByte(char c) {
      ensure(1);
      buffer[length++] = (byte) c;
    }

    /** Decimal digits straight into the buffer: no String per offset. */
    private void appendLong(long value) {
      ensure(20);
      if (value < 0) {
        buffer[length++] = '-';
        value = -value; // offsets are never Long.MIN_VALUE here (that is NONE)
      }
      int start = length;
      do {
        buffer[length++] = (byte) ('0' + (value % 10));
        value /= 10;
      } while (value != 0);
      reverse(start, length - 1);
    }

    private void appendHex(long value) {
      ensure(16);
      int start = length;
      do {
        buffer[length++] = (byte) Character.forDigit((int) (value & 0xF), 16);
        value >>>= 4;
      } while (value != 0);
      reverse(start, length - 1);
    }

    private void reverse(int i, int j) {
      while (i < j) {
        byte swap = buffer[i];
        buffer[i++] = buffer[j];
        buffer[j--] = swap;
      }
    }
  }

  private static final byte[] MAGIC_LINE = (MAGIC + "\n").getBytes(StandardCharsets.UTF_8);
  private static final byte[] WRITTEN = "written ".getBytes(StandardCharsets.UTF_8);
  private static final byte[] END = "end ".getBytes(StandardCharsets.UTF_8);
}
