package io.millrace.kafka.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * One partition's log as the broker's files hold it, grouped into its transactions: which records
 * each transaction wrote, whether it committed or aborted, and where and when its marker was
 * written. A reader of committed data sees the records but not where one transaction ends and
 * the next begins; an exactly-once test that failed needs exactly that, to set each changelog
 * transaction beside the checkpoint it committed with (their markers are written at the same
 * moment). Reads the segment files read-only, so a live broker's files are safe (a batch being
 * written is left out). Kafka's record classes here are its client's internal ones: a test aid,
 * to be mended at an upgrade if they move.
 */
public final class TransactionLog {
  /** A record of a transaction: its offset, key and value (null: none). */
  public record Entry(long offset, byte[] key, byte[] value) {}

  /**
   * A transaction of one producer in the partition; {@code markerOffset} -1 if still open when
   * read.
   */
  public record Transaction(long producerId, boolean committed, long markerOffset,
      long markerTimestamp, List<Entry> entries) {}

  private TransactionLog() {}

  /** The transactions of {@code topic}'s partition {@code partition} under a broker's data dir. */
  public static List<Transaction> read(Path dataDir, String topic, int partition) {
    File dir = dataDir.resolve(topic + "-" + partition).toFile();
    File[] segments = dir.listFiles((d, name) -> name.endsWith(".log"));
    if (segments == null) {
      throw new IllegalArgumentException("no log of " + topic + "-" + partition + " in " + dataDir);
    }
    Arrays.sort(segments); // named by base offset, zero-padded
    Map<Long, List<Entry>> open = new HashMap<>();
    List<Transaction> transactions = new ArrayList<>();
    for (File segment : segments) {
      try (FileRecords records = FileRecords.open(segment, false)) {
        for (RecordBatch batch : records.batches()) {
          for (Record r : batch) {
            if (batch.isControlBatch()) {
              List<Entry> entries = open.remove(batch.producerId());
              transactions.add(new Transaction(batch.producerId(),
                  ControlRecordType.parse(r.key()) == ControlRecordType.COMMIT, r.offset(),
                  r.timestamp(), entries == null ? List.of() : entries));
            } else if (batch.isTransactional()) {
              open.computeIfAbsent(batch.producerId(), id -> new ArrayList<>())
                  .add(new Entry(r.offset(), bytes(r.key()), bytes(r.value())));
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + segment, e);
      }
    }
    open.forEach((id, entries) -> transactions.add(new Transaction(id, false, -1, Long.MAX_VALUE,
        entries)));
    return transactions;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }
}
