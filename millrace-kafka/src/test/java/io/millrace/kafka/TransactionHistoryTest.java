package io.millrace.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once kill test's diagnostics, on log files written here: a committed transaction
 * whose checkpoint record got no marker (its producer's next epoch followed it) is told apart
 * from the next one, and the report shows the checkpoint partition's batches around it.
 */
class TransactionHistoryTest {
  static final long PID = 254;
  @TempDir Path data;

  @Test
  void aCheckpointRecordWithoutAMarkerIsShownWithItsEpochAndTheDuplicateItCausedIsMarked()
      throws IOException {
    try (Log checkpoints = new Log(data.resolve("cp-0"));
        Log out = new Log(data.resolve("out-0"))) {
      write(checkpoints, out);
    }

    String report = TransactionHistory.of(data, "out", "cp");

    assertThat(report)
        .contains("pid 254 epoch 6 OPEN/COMMIT: checkpoint {0=19}")
        .contains("pid 254 epoch 9 COMMIT: checkpoint {0=29}, outputs of 0:[10..29]")
        .contains("WRONG: partition 0 should be [20..29]")
        .contains("the checkpoint partition's batches of pid 254")
        .contains("2 pid 254 epoch 6 seq 0..0")
        .contains("4 pid 254 epoch 10 COMMIT");
  }

  private static void write(Log checkpoints, Log out) throws IOException {
    // Epoch 5: inputs 0..9 and their checkpoint, committed in both partitions.
    out.records(5, outputs(0, 9));
    checkpoints.records(5, checkpoint(9));
    out.marker(6, ControlRecordType.COMMIT);
    checkpoints.marker(6, ControlRecordType.COMMIT);
    // Epoch 6: inputs 10..19 committed, but the checkpoint partition never got the marker.
    out.records(6, outputs(10, 19));
    checkpoints.records(6, checkpoint(19));
    out.marker(7, ControlRecordType.COMMIT);
    // Epoch 9 (after a restart from checkpoint 9): inputs 10..29 again, committed everywhere.
    out.records(9, outputs(10, 29));
    checkpoints.records(9, checkpoint(29));
    out.marker(10, ControlRecordType.COMMIT);
    checkpoints.marker(10, ControlRecordType.COMMIT);
  }

  private static SimpleRecord[] outputs(int from, int to) {
    List<SimpleRecord> records = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      records.add(new SimpleRecord(null, ("0:" + i).getBytes(StandardCharsets.UTF_8)));
    }
    return records.toArray(new SimpleRecord[0]);
  }

  private static SimpleRecord[] checkpoint(long offset) {
    return new SimpleRecord[] {new SimpleRecord("task-0".getBytes(StandardCharsets.UTF_8),
        ("millrace-checkpoint 1\nkafka\tin\t0\t" + offset + "\n")
            .getBytes(StandardCharsets.UTF_8))};
  }

  /** One partition's segment file, appended to as a broker would. */
  private static final class Log implements AutoCloseable {
    private final FileRecords file;
    private long next;

    Log(Path dir) throws IOException {
      Files.createDirectories(dir);
      file = FileRecords.open(dir.resolve("00000000000000000000.log").toFile());
    }

    void records(int epoch, SimpleRecord... records) throws IOException {
      // Every transaction's sequence numbers start at 0 (transaction version 2).
      file.append(MemoryRecords.withTransactionalRecords(next, Compression.NONE, PID,
          (short) epoch, 0, 0, records));
      next += records.length;
      file.flush();
    }

    void marker(int epoch, ControlRecordType type) throws IOException {
      file.append(MemoryRecords.withEndTransactionMarker(next, 0L, 0, PID, (short) epoch,
          new EndTransactionMarker(type, 0)));
      next++;
      file.flush();
    }

    @Override
    public void close() throws IOException {
      file.close();
    }
  }
}
