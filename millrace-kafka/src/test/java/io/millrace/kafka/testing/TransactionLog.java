package io.millrace.kafka.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
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
   * A transaction of one producer in the partition: {@code epoch} is its records' producer epoch
   * (under transaction version 2 each transaction has one of its own, the same in every partition
   * it wrote to: what sets a changelog's transaction beside its checkpoint's); {@code
   * markerOffset} is -1 if it was still open when read, or if a later epoch of its producer followed
   * it with no marker between (a transaction never ended in this partition).
   */
  public record Transaction(long producerId, short epoch, boolean committed, long markerOffset,
      long markerTimestamp, List<Entry> entries) {

    /** Whether it is the same transaction as {@code other}, seen in another partition. */
    public boolean sameAs(Transaction other) {
      return producerId == other.producerId && epoch == other.epoch;
    }
  }

  /**
   * A batch as the log holds it: where, whose (producer id and epoch), its sequence numbers and,
   * for a marker, its type. What a transaction's story needs below the records: a batch the
   * broker took for a duplicate, or one written under another epoch, shows here.
   */
  public record Batch(long baseOffset, long lastOffset, long producerId, short epoch,
      int baseSequence, int lastSequence, String marker) {
    @Override
    public String toString() {
      return baseOffset + (lastOffset == baseOffset ? "" : ".." + lastOffset) + " pid "
          + producerId + " epoch " + epoch + (marker != null ? " " + marker
          : " seq " + baseSequence + ".." + lastSequence);
    }
  }

  private TransactionLog() {}

  /** Every transactional batch in a partition's directory, in log order. */
  public static List<Batch> batches(Path partitionDir) {
    List<Batch> batches = new ArrayList<>();
    forEachBatch(partitionDir, b -> {
      if (!b.isTransactional()) {
        return;
      }
      String marker = null;
      if (b.isControlBatch()) {
        Iterator<Record> it = b.iterator();
        marker = it.hasNext() ? ControlRecordType.parse(it.next().key()).toString() : "EMPTY";
      }
      batches.add(new Batch(b.baseOffset(), b.lastOffset(), b.producerId(), b.producerEpoch(),
          b.baseSequence(), b.lastSequence(), marker));
    });
    return batches;
  }

  /** Hands each batch of a partition's directory to {@code action}, in log order. */
  private static void forEachBatch(Path partitionDir, Consumer<RecordBatch> action) {
    File[] segments = partitionDir.toFile().listFiles((d, name) -> name.endsWith(".log"));
    if (segments == null) {
      throw new IllegalArgumentException("no partition log in " + partitionDir);
    }
    Arrays.sort(segments); // named by base offset, zero-padded
    for (File segment : segments) {
      try (FileRecords records = FileRecords.open(segment, false)) {
        records.batches().forEach(action);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + segment, e);
      }
    }
  }

  /** The transactions of {@code topic}'s partition {@code partition} under a broker's data dir. */
  public static List<Transaction> read(Path dataDir, String topic, int partition) {
    return read(dataDir.resolve(topic + "-" + partition));
  }

  /**
   * The transactions in a partition's directory, in the order their markers were written (those
   * still open last). Records written outside transactions are left out.
   */
  public static List<Transaction> read(Path partitionDir) {
    Map<Long, List<Entry>> open = new HashMap<>();
    Map<Long, Short> epochs = new HashMap<>();
    List<Transaction> transactions = new ArrayList<>();
    forEachBatch(partitionDir, batch -> {
      for (Record r : batch) {
        if (batch.isControlBatch()) {
          List<Entry> entries = open.remove(batch.producerId());
          Short epoch = epochs.remove(batch.producerId());
          transactions.add(new Transaction(batch.producerId(),
              epoch == null ? batch.producerEpoch() : epoch,
              ControlRecordType.parse(r.key()) == ControlRecordType.COMMIT, r.offset(),
              r.timestamp(), entries == null ? List.of() : entries));
        } else if (batch.isTransactional()) {
          Short before = epochs.put(batch.producerId(), batch.producerEpoch());
          if (before != null && before != batch.producerEpoch()) {
            // A new epoch with no marker between: the records before got none (a transaction
            // the coordinator never ended here). Kept apart, as open, not merged into this one.
            transactions.add(new Transaction(batch.producerId(), before, false, -1,
                Long.MAX_VALUE, open.remove(batch.producerId())));
          }
          open.computeIfAbsent(batch.producerId(), id -> new ArrayList<>())
              .add(new Entry(r.offset(), bytes(r.key()), bytes(r.value())));
        }
      }
    });
    open.forEach((id, entries) -> transactions.add(new Transaction(id, epochs.get(id), false, -1,
        Long.MAX_VALUE, entries)));
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
