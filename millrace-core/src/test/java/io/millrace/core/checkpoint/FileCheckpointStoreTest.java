package io.millrace.core.checkpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileCheckpointStoreTest {
  private static final StreamPartition A0 = new StreamPartition("file", "lines", 0);
  private static final StreamPartition A1 = new StreamPartition("file", "lines", 1);
  private static final StreamPartition B0 = new StreamPartition("memory", "table", 0);

  @TempDir Path dir;

  private FileCheckpointStore store() {
    return new FileCheckpointStore(dir.resolve("checkpoints"));
  }

  /** A checkpoint file as the store writes it, with a correct CRC. */
  private static String checkpointText(long written, List<String> records, int countOnEndLine) {
    StringBuilder body = new StringBuilder("millrace-checkpoint 1\nwritten " + written + "\n");
    for (String record : records) {
      body.append(record).append('\n');
    }
    CRC32 crc = new CRC32();
    crc.update(body.toString().getBytes(StandardCharsets.UTF_8));
    return body + "end " + countOnEndLine + " " + Long.toHexString(crc.getValue()) + "\n";
  }

  private Path writeValidCheckpoint() {
    FileCheckpointStore store = store();
    store.writer(0, List.of(A0, A1, B0)).write(new long[] {1234, 99_000_000_000L, 7});
    assertThat(store.read()).hasSize(3);
    return store.file(0);
  }

  @Test
  void writtenOffsetsReadBack() {
    FileCheckpointStore store = store();
    assertThat(store.read()).as("no directory yet: no checkpoint").isEmpty();
    CheckpointWriter writer = store.writer(0, List.of(A0, A1, B0));
    writer.write(new long[] {41, CheckpointStore.NONE, 0});
    assertThat(store.read()).isEqualTo(Map.of(A0, 41L, B0, 0L));

    writer.write(new long[] {42, 1_000_000_000_000L, 3});
    assertThat(store.read()).isEqualTo(Map.of(A0, 42L, A1, 1_000_000_000_000L, B0, 3L));
    assertThat(store.file(0)).exists();
    assertThat(store.file(0).resolveSibling("container-0.checkpoint.tmp")).doesNotExist();
  }

  @Test
  void eachContainerHasItsOwnFileAndReadMergesThem() {
    FileCheckpointStore store = store();
    store.writer(0, List.of(A0)).write(new long[] {5});
    store.writer(1, List.of(A1, B0)).write(new long[] {6, 7});
    assertThat(store.read()).isEqualTo(Map.of(A0, 5L, A1, 6L, B0, 7L));
    assertThat(store.file(1).getFileName().toString()).isEqualTo("container-1.checkpoint");
  }

  @Test
  void manyPartitionsAndLargeOffsetsRoundTrip() {
    int n = 5_000;
    List<StreamPartition> partitions = new java.util.ArrayList<>();
    long[] offsets = new long[n];
    for (int i = 0; i < n; i++) {
      partitions.add(new StreamPartition("kafka", "topic-" + (i % 7), i));
      offsets[i] = i % 3 == 0 ? Long.MAX_VALUE - i : i * 1_000_003L;
    }
    FileCheckpointStore store = store();
    CheckpointWriter writer = store.writer(0, partitions);
    writer.write(offsets);
    writer.write(offsets); // the reused buffer is reset between writes
    Map<StreamPartition, Long> read = store.read();
    assertThat(read).hasSize(n);
    for (int i = 0; i < n; i++) {
      assertThat(read.get(partitions.get(i))).isEqualTo(offsets[i]);
    }
  }

  @Test
  void streamNamesOutsideAsciiRoundTrip() {
    FileCheckpointStore store = store();
    StreamPartition accented = new StreamPartition("file", "données-clés", 2);
    store.writer(0, List.of(accented, A0)).write(new long[] {17, 18});
    assertThat(store.read()).isEqualTo(Map.of(accented, 17L, A0, 18L));
  }

  @Test
  void everyFlippedBitIsACheckpointExceptionNamingTheFile() throws Exception {
    Path file = writeValidCheckpoint();
    byte[] good = Files.readAllBytes(file);
    for (int i = 0; i < good.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) (1 << bit);
        Files.write(file, bad);
        int at = i;
        int b = bit;
        assertThatThrownBy(() -> store().read())
            .as("byte %d bit %d flipped", at, b)
            .isInstanceOf(CheckpointException.class)
            .hasMessageContaining(file.toString())
            .hasMessageContaining("corrupt");
      }
    }
  }

  @Test
  void truncatedFileIsACheckpointExceptionNamingTheFile() throws Exception {
    Path file = writeValidCheckpoint();
    byte[] good = Files.readAllBytes(file);
    for (int length = 0; length < good.length; length++) {
      Files.write(file, Arrays.copyOf(good, length));
      int at = length;
      assertThatThrownBy(() -> store().read())
          .as("truncated to %d of %d bytes", at, good.length)
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining(file.toString());
    }
  }

  @Test
  void garbageIsACheckpointExceptionNamingTheFile() throws Exception {
    Path file = writeValidCheckpoint();
    Files.writeString(file, "{\"offsets\": [1, 2, 3]}\n");
    assertThatThrownBy(() -> store().read())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("not a complete Millrace checkpoint");

    byte[] random = new byte[300];
    new java.util.Random(7).nextBytes(random);
    Files.write(file, random);
    assertThatThrownBy(() -> store().read())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(file.toString());
  }

  @Test
  void wrongRecordCountIsACheckpointExceptionNamingTheFile() throws Exception {
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    Path file = checkpoints.resolve("container-0.checkpoint");
    // The CRC covers the records, not the end line: only the count gives this away.
    Files.writeString(file, checkpointText(1000, List.of("file\tlines\t0\t5", "file\tlines\t1\t6"),
        3));
    assertThatThrownBy(() -> store().read())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("counts 3 records, the file has 2");
  }

  @Test
  void recordWithBadFieldsIsACheckpointExceptionNamingTheFileAndLine() throws Exception {
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    Path file = checkpoints.resolve("container-0.checkpoint");
    Files.writeString(file, checkpointText(1000, List.of("file\tlines\t0\tfive"), 1));
    assertThatThrownBy(() -> store().read())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("line 3")
        .hasMessageContaining("'five' is not a number");
    Files.writeString(file, checkpointText(1000, List.of("file\tlines\t0"), 1));
    assertThatThrownBy(() -> store().read())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("4 tab-separated fields");
  }

  @Test
  void crashLeavingOnlyATempFileKeepsThePreviousCheckpoint() throws Exception {
    FileCheckpointStore store = store();
    CheckpointWriter writer = store.writer(0, List.of(A0));
    writer.write(new long[] {10});
    // A crash during the next write: the temp file is half written, the rename never happened.
    Path temp = store.file(0).resolveSibling("container-0.checkpoint.tmp");
    Files.writeString(temp, "millrace-checkpoint 1\nwritten 99\nfile\tlines\t0\t2");
    assertThat(store().read()).isEqualTo(Map.of(A0, 10L));

    // The restarted job writes over the stale temp file.
    CheckpointWriter restarted = store().writer(0, List.of(A0));
    restarted.write(new long[] {20});
    assertThat(store().read()).isEqualTo(Map.of(A0, 20L));
    assertThat(temp).doesNotExist();
  }

  @Test
  void crashBeforeTheFirstCheckpointLeavesNoCheckpoint() throws Exception {
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    Files.writeString(checkpoints.resolve("container-0.checkpoint.tmp"), "millrace-check");
    assertThat(store().read()).isEmpty();
  }

  @Test
  void newestWrittenTimeWinsWhenTwoContainerFilesHoldTheSamePartition() throws Exception {
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    // Container 1 wrote last (its file is newer), container 0's file is older.
    Files.writeString(checkpoints.resolve("container-0.checkpoint"),
        checkpointText(1_000, List.of("file\tlines\t0\t100", "file\tlines\t1\t111"), 2));
    Files.writeString(checkpoints.resolve("container-1.checkpoint"),
        checkpointText(2_000, List.of("file\tlines\t0\t200"), 1));
    assertThat(store().read()).isEqualTo(Map.of(A0, 200L, A1, 111L));

    // The other way round: the lower-numbered file is the newer one.
    Files.writeString(checkpoints.resolve("container-0.checkpoint"),
        checkpointText(3_000, List.of("file\tlines\t0\t300"), 1));
    assertThat(store().read()).isEqualTo(Map.of(A0, 300L));
  }

  @Test
  void aRecordCarriedForAPartitionThatMovedGivesWayToItsNewOwnersAndIsThenDropped()
      throws Exception {
    FileCheckpointStore store = store();
    store.writer(0, List.of(A0, A1)).write(new long[] {5, 6}); // one container held both
    CheckpointWriter zero = store.writer(0, List.of(A0)); // two containers now
    zero.write(new long[] {7});
    assertThat(store.read()).as("A1 kept in container 0's file").isEqualTo(Map.of(A0, 7L, A1, 6L));

    store.writer(1, List.of(A1)).write(new long[] {9});
    zero.write(new long[] {8}); // still carries A1 at 6, with the time it was checkpointed
    assertThat(store.read()).isEqualTo(Map.of(A0, 8L, A1, 9L));

    store.writer(0, List.of(A0)).write(new long[] {10}); // container 1's file holds A1 now
    assertThat(Files.readString(store.file(0))).doesNotContain("lines\t1\t");
    assertThat(store().read()).isEqualTo(Map.of(A0, 10L, A1, 9L));
  }

  @Test
  void aFileOfAnEarlierVersionWithMillisecondsIsOlderThanAnyNewWrite() throws Exception {
    Path checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
    Files.writeString(checkpoints.resolve("container-0.checkpoint"), checkpointText(
        System.currentTimeMillis(), List.of("file\tlines\t0\t100", "file\tlines\t1\t111"), 2));
    FileCheckpointStore store = store();
    store.writer(1, List.of(A1)).write(new long[] {120});
    assertThat(store.read()).isEqualTo(Map.of(A0, 100L, A1, 120L));
  }
}
