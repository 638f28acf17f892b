package io.millrace.kafka;

import io.millrace.kafka.dev.DevBroker;
import io.millrace.kafka.testing.TransactionLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Diagnostics for the exactly-once tests: a pass-through's transactions as the test broker's log
 * files hold them (a reader of committed data cannot see where one ends). Each transaction, named
 * by its producer id and epoch (under transaction version 2 each transaction has an epoch of its
 * own), with its outcome (the marker that followed it), the checkpoint records it holds and the
 * range of inputs ("p:i" values) its outputs copy. A committed transaction is wrong if its outputs
 * are not exactly the inputs between the checkpoint before it and its own: a restart after it
 * reads them again (a duplicate) or never (a loss). The files are read by {@link TransactionLog}
 * (records written outside transactions are left out).
 */
final class TransactionHistory {
  private record Txn(long producerId, short epoch) {}

  private static final class Info {
    /** Its marker's type (or OPEN) in each partition it wrote to, if they differ. */
    String outcome;
    final Map<Integer, Long> checkpoint = new TreeMap<>();
    /** Input partition -> {lowest i, highest i, count, first output offset}. */
    final Map<Integer, long[]> outputs = new TreeMap<>();
  }

  private final Map<Txn, Info> txns = new HashMap<>();
  /** The checkpoint partition's transactional batches, for the story of a wrong transaction. */
  private List<TransactionLog.Batch> checkpointBatches = List.of();

  private TransactionHistory() {}

  /**
   * The transactions of a pass-through that copies "p:i" values from its input to {@code out},
   * checkpointing in {@code checkpointTopic}; the wrong ones marked, with the ones around them.
   */
  static String of(DevBroker broker, String out, String checkpointTopic) {
    return of(broker.dir().resolve("data"), out, checkpointTopic);
  }

  /** As {@link #of(DevBroker, String, String)}, from a broker's data directory. */
  static String of(Path data, String out, String checkpointTopic) {
    TransactionHistory history = new TransactionHistory();
    try (Stream<Path> dirs = Files.list(data)) {
      for (Path dir : dirs.sorted().toList()) {
        String name = dir.getFileName().toString();
        if (name.equals(checkpointTopic + "-0")) {
          history.scan(dir, history::checkpointRecord);
          history.checkpointBatches = TransactionLog.batches(dir);
        } else if (name.startsWith(out + "-")
            && name.substring(out.length() + 1).chars().allMatch(Character::isDigit)) {
          history.scan(dir, history::outputRecord);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return history.report();
  }

  private interface RecordSink {
    void accept(Info txn, long offset, String key, String value);
  }

  private void scan(Path dir, RecordSink sink) {
    for (TransactionLog.Transaction t : TransactionLog.read(dir)) {
      Info info = txns.computeIfAbsent(new Txn(t.producerId(), t.epoch()), k -> new Info());
      String outcome = t.committed() ? "COMMIT" : t.markerOffset() < 0 ? "OPEN" : "ABORT";
      // One outcome in every partition, or each partition's (checkpoint's first): the sign of a
      // transaction the coordinator did not end everywhere it wrote.
      info.outcome = info.outcome == null || info.outcome.equals(outcome) ? outcome
          : info.outcome + "/" + outcome;
      for (TransactionLog.Entry e : t.entries()) {
        sink.accept(info, e.offset(), text(e.key()), text(e.value()));
      }
    }
  }

  private static String text(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  /** A checkpoint record: lines of system TAB stream TAB partition TAB offset. */
  private void checkpointRecord(Info txn, long offset, String key, String value) {
    if (value == null) {
      return;
    }
    for (String line : value.split("\n")) {
      String[] fields = line.split("\t");
      if (fields.length == 4) {
        txn.checkpoint.put(Integer.parseInt(fields[2]), Long.parseLong(fields[3]));
      }
    }
  }

  /** An output record: "p:i", the copy of input partition p's record i. */
  private void outputRecord(Info txn, long offset, String key, String value) {
    String[] pi = value == null ? new String[0] : value.split(":");
    if (pi.length != 2) {
      return;
    }
    long i = Long.parseLong(pi[1]);
    long[] range = txn.outputs.computeIfAbsent(Integer.parseInt(pi[0]),
        p -> new long[] {Long.MAX_VALUE, -1, 0, offset});
    range[0] = Math.min(range[0], i);
    range[1] = Math.max(range[1], i);
    range[2]++;
  }

  private String report() {
    List<Map.Entry<Txn, Info>> order = new ArrayList<>(txns.entrySet());
    order.sort(Comparator.comparingLong((Map.Entry<Txn, Info> e) -> e.getKey().producerId())
        .thenComparingInt(e -> e.getKey().epoch()));
    Map<Integer, Long> checkpoint = new HashMap<>();
    Map<Integer, String> lines = new LinkedHashMap<>();
    List<Integer> wrong = new ArrayList<>();
    for (int n = 0; n < order.size(); n++) {
      Txn t = order.get(n).getKey();
      Info info = order.get(n).getValue();
      StringBuilder line = new StringBuilder("  pid " + t.producerId() + " epoch " + t.epoch()
          + " " + info.outcome + ": checkpoint " + info.checkpoint);
      info.outputs.forEach((p, r) -> line.append(", outputs of ").append(p).append(":[")
          .append(r[0]).append("..").append(r[1]).append("] (").append(r[2])
          .append(" records from offset ").append(r[3]).append(")"));
      if (info.outcome.endsWith("COMMIT")) {
        StringBuilder why = new StringBuilder();
        for (Map.Entry<Integer, long[]> o : info.outputs.entrySet()) {
          long before = checkpoint.getOrDefault(o.getKey(), -1L);
          long after = info.checkpoint.getOrDefault(o.getKey(), before);
          long[] r = o.getValue();
          if (r[0] != before + 1 || r[1] != after || r[2] != r[1] - r[0] + 1) {
            why.append(" partition ").append(o.getKey()).append(" should be [")
                .append(before + 1).append("..").append(after).append("]");
          }
        }
        for (Map.Entry<Integer, Long> c : info.checkpoint.entrySet()) {
          long before = checkpoint.getOrDefault(c.getKey(), -1L);
          if (c.getValue() != before && !info.outputs.containsKey(c.getKey())) {
            why.append(" partition ").append(c.getKey()).append(" has no outputs for [")
                .append(before + 1).append("..").append(c.getValue()).append("]");
          }
        }
        if (why.length() > 0) {
          line.append("   <-- WRONG:").append(why);
          wrong.add(n);
        }
        checkpoint.putAll(info.checkpoint);
      }
      lines.put(n, line.toString());
    }
    if (wrong.isEmpty()) {
      return "every committed transaction holds exactly the outputs of its checkpoint's inputs ("
          + order.size() + " transactions)";
    }
    StringBuilder report = new StringBuilder(wrong.size() + " committed transaction(s) hold "
        + "outputs other than those of their checkpoint's inputs (of " + order.size() + "):\n");
    int shownTo = -1;
    for (int w : wrong) {
      for (int n = Math.max(shownTo + 1, w - 3); n <= Math.min(order.size() - 1, w + 3); n++) {
        report.append(lines.get(n)).append('\n');
        shownTo = n;
      }
      // The checkpoint partition's batches of that producer around it, markers included: whether
      // the missing checkpoint was written at all, under which epoch and sequence numbers.
      Txn t = order.get(w).getKey();
      report.append("  the checkpoint partition's batches of pid ").append(t.producerId())
          .append(", epochs ").append(t.epoch() - 3).append(" to ").append(t.epoch() + 3)
          .append(":");
      for (TransactionLog.Batch b : checkpointBatches) {
        if (b.producerId() == t.producerId() && Math.abs(b.epoch() - t.epoch()) <= 3) {
          report.append("\n    ").append(b);
        }
      }
      report.append('\n');
    }
    return report.toString();
  }
}
