package io.millrace.core.system.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemContext;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.testing.TestSystemContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Line offsets and the admin's view of a file, which bootstrap and progress rely on. */
class FileSystemTest {
  @TempDir Path tmp;

  private static final SystemContext CONTEXT = TestSystemContext.of("file", "test", -1);

  /** Every line start and content as the reader sees them. */
  private static List<Object[]> read(Path file, long from) throws Exception {
    List<Object[]> lines = new ArrayList<>();
    try (LineReader reader = new LineReader(file, from)) {
      while (reader.next()) {
        lines.add(new Object[] {reader.lineStart(),
            new String(reader.lineBytes(), StandardCharsets.UTF_8)});
      }
    }
    return lines;
  }

  private StreamMetadata metadata(Path file) {
    try (SystemAdmin admin = new FileSystemFactory().admin(CONTEXT)) {
      StreamSpec spec = new StreamSpec("s", file.toString(), new StringSerde(), new StringSerde());
      assertThat(admin.partitionCount(spec)).isEqualTo(1);
      return admin.metadata(spec, 0);
    }
  }

  private void assertNewestIsTheLastLineTheReaderReturns(String content) throws Exception {
    Path file = tmp.resolve("f-" + Integer.toHexString(content.hashCode()));
    Files.writeString(file, content, StandardCharsets.UTF_8);
    List<Object[]> lines = read(file, 0);
    StreamMetadata meta = metadata(file);
    long expectedNewest = lines.isEmpty() ? -1 : (long) lines.get(lines.size() - 1)[0];
    assertThat(meta.newest()).as("newest of %s", content.length() > 40 ? "a long file" : content)
        .isEqualTo(expectedNewest);
    assertThat(meta.upcoming()).isEqualTo(Files.size(file));
    assertThat(meta.bounded()).isTrue();
  }

  @Test
  void lineReaderGivesEachLineWithItsByteOffset() throws Exception {
    Path file = tmp.resolve("in.txt");
    Files.writeString(file, "alpha\r\nbé\n\nlast", StandardCharsets.UTF_8);
    List<Object[]> lines = read(file, 0);
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).containsExactly(0L, "alpha");
    assertThat(lines.get(1)).containsExactly(7L, "bé");
    assertThat(lines.get(2)).containsExactly(11L, "");
    assertThat(lines.get(3)).containsExactly(12L, "last");
    // Starting in the middle, at a line start, as a restart does.
    assertThat(read(file, 7)).extracting(l -> l[0]).containsExactly(7L, 11L, 12L);
  }

  @Test
  void lineReaderHandlesLinesLongerThanItsBuffer() throws Exception {
    Path file = tmp.resolve("long.txt");
    String big = "x".repeat(200_000);
    Files.writeString(file, "a\n" + big + "\nb\n");
    List<Object[]> lines = read(file, 0);
    assertThat(lines).hasSize(3);
    assertThat(lines.get(1)[1]).isEqualTo(big);
    assertThat(lines.get(2)).containsExactly(200_003L, "b");
  }

  @Test
  void newestOffsetIsTheStartOfTheLastLine() throws Exception {
    assertNewestIsTheLastLineTheReaderReturns("a\nb\n");
    assertNewestIsTheLastLineTheReaderReturns("a\nb");
    assertNewestIsTheLastLineTheReaderReturns("a\n\n");
    assertNewestIsTheLastLineTheReaderReturns("\n");
    assertNewestIsTheLastLineTheReaderReturns("only");
    assertNewestIsTheLastLineTheReaderReturns("");
    assertNewestIsTheLastLineTheReaderReturns("a\r\nb\r\n");
    assertNewestIsTheLastLineTheReaderReturns("a\n" + "y".repeat(20_000) + "\n");
    assertNewestIsTheLastLineTheReaderReturns("z".repeat(8_192) + "\n" + "w".repeat(8_191) + "\n");
    assertNewestIsTheLastLineTheReaderReturns("q".repeat(8_193));
  }

  @Test
  void directoryIsAStreamWithOnePartitionPerVisibleFileInNameOrder() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("dir"));
    Files.writeString(dir.resolve("b.txt"), "b\n");
    Files.writeString(dir.resolve("a.txt"), "a\n");
    Files.writeString(dir.resolve(".crc"), "hidden\n");
    Files.createDirectories(dir.resolve("sub"));
    assertThat(FileStreams.inputFiles("s", dir)).containsExactly(dir.resolve("a.txt"),
        dir.resolve("b.txt"));
  }

  /** Hands over at most {@code max} lines of the file at index 0, as the loop asks. */
  private static int poll(FileConsumer consumer, int max, List<Envelope> into) {
    return consumer.poll(new int[] {0}, 1, max, new BatchSink() {
      @Override
      public void accept(int index, Envelope[] messages, int from, int count) {
        into.addAll(java.util.Arrays.asList(messages).subList(from, from + count));
      }

      @Override
      public void endOfStream(int index) {}

      @Override
      public void head(int index, long upcomingOffset) {}
    }, 0);
  }

  @Test
  void theConsumerCountsTheLinesItHandsOverAndEstimatesThoseLeftFromTheBytesLeft()
      throws Exception {
    Path file = tmp.resolve("hundred.txt");
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 100; i++) {
      text.append(String.format("line %04d %s\n", i, "x".repeat(89))); // 100 bytes a line
    }
    Files.writeString(file, text);
    FileConsumer consumer = new FileConsumer(CONTEXT);
    consumer.register(0, new StreamSpec("s", file.toString(), new StringSerde(),
        new StringSerde()), 0, StartPosition.oldest());
    assertThat(consumer.handedOver(0)).isZero();
    assertThat(consumer.remaining(0)).as("not open yet: unknown").isEqualTo(-1);
    consumer.start();
    assertThat(consumer.remaining(0)).as("open, nothing read: no line length to go by")
        .isEqualTo(-1);

    List<Envelope> read = new ArrayList<>();
    poll(consumer, 30, read);
    assertThat(consumer.handedOver(0)).isEqualTo(30);
    assertThat(consumer.remaining(0)).isEqualTo(70); // 7,000 bytes left at 100 a line
    poll(consumer, 1000, read);
    assertThat(read).hasSize(100);
    assertThat(consumer.handedOver(0)).isEqualTo(100);
    assertThat(consumer.remaining(0)).isZero();
    consumer.stop();
  }

  @Test
  void aConsumerResumingAfterACheckpointCountsFromThere() throws Exception {
    Path file = tmp.resolve("ten.txt");
    Files.writeString(file, "0123456789\n".repeat(10)); // 11 bytes a line
    FileConsumer consumer = new FileConsumer(CONTEXT);
    consumer.register(0, new StreamSpec("s", file.toString(), new StringSerde(),
        new StringSerde()), 0, StartPosition.after(33)); // the 4th line was processed
    consumer.start();
    List<Envelope> read = new ArrayList<>();
    poll(consumer, 2, read);
    assertThat(read).extracting(Envelope::offset).containsExactly(44L, 55L);
    assertThat(consumer.handedOver(0)).isEqualTo(2);
    assertThat(consumer.remaining(0)).isEqualTo(4);
    consumer.stop();
  }
}
