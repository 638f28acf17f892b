package io.millrace.bench.store;

import io.millrace.bench.support.Args;
import io.millrace.bench.support.Stats;
import io.millrace.bench.support.TempDirs;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The floor under a store read: bare RocksDB (default options, no Millrace) holding N keys, then N
 * {@code get}s of keys it does not hold and N of keys it holds, timed one by one. Prints the
 * rocksdbjni version on the classpath with {@code RESULT rocksdb-get miss_us=... hit_us=...}.
 * To compare versions, run this class with another rocksdbjni jar first on the classpath.
 *
 * <p>Each round times both ways of calling {@code get}: with byte arrays ({@code get(byte[])},
 * which copies the key into a native buffer and the value into a new Java array made in native
 * code) and with direct buffers ({@code get(ReadOptions, ByteBuffer, ByteBuffer)}, reused: the
 * key and value are read and written in place), as {@code direct_miss_us}/{@code direct_hit_us}.
 * Medians of {@code --rounds} rounds after one warm-up round.
 */
public final class RocksDbGetBench {
  private RocksDbGetBench() {}

  /** Runs it; see the class comment. */
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, 0);
    int keys = (int) args.getLong("keys", 1_000_000);
    RocksDB.loadLibrary();
    Path dir = Files.createTempDirectory("millrace-rocksdb-get");
    try (Options options = new Options().setCreateIfMissing(true);
        RocksDB db = RocksDB.open(options, dir.toString());
        WriteBatch batch = new WriteBatch();
        WriteOptions write = new WriteOptions()) {
      for (int i = 0; i < keys; i++) {
        batch.put(("key-" + i).getBytes(StandardCharsets.UTF_8), new byte[8]);
        if (i % 10_000 == 9_999) {
          db.write(write, batch);
          batch.clear();
        }
      }
      db.write(write, batch);
      int rounds = (int) args.getLong("rounds", 3);
      double[][] figures = new double[4][rounds];
      try (ReadOptions read = new ReadOptions()) {
        for (int round = -1; round < rounds; round++) { // round -1: warm-up, not counted
          double[] f = {time(db, "nokey-", keys, false), time(db, "key-", keys, true),
              timeDirect(db, read, "nokey-", keys, false),
              timeDirect(db, read, "key-", keys, true)};
          if (round >= 0) {
            for (int i = 0; i < 4; i++) {
              figures[i][round] = f[i];
            }
          }
          System.out.printf(Locale.ROOT, "%s: miss %.3f us, hit %.3f us; direct miss %.3f us, "
              + "direct hit %.3f us%n", round < 0 ? "warm-up" : "round " + (round + 1), f[0], f[1],
              f[2], f[3]);
        }
      }
      System.out.printf(Locale.ROOT, "RESULT rocksdb-get rocksdb=%s keys=%d miss_us=%.3f "
          + "hit_us=%.3f direct_miss_us=%.3f direct_hit_us=%.3f rounds=%d%n",
          RocksDB.rocksdbVersion(), keys, Stats.median(figures[0]), Stats.median(figures[1]),
          Stats.median(figures[2]), Stats.median(figures[3]), rounds);
    } finally {
      TempDirs.deleteRecursively(dir);
    }
  }

  /** One way of reading a key: whether the database holds it. */
  private interface Lookup {
    boolean found(byte[] key) throws RocksDBException;
  }

  private static double time(RocksDB db, String prefix, int n, boolean expectFound)
      throws Exception {
    return time(prefix, n, expectFound, key -> db.get(key) != null);
  }

  private static double timeDirect(RocksDB db, ReadOptions read, String prefix, int n,
      boolean expectFound) throws Exception {
    ByteBuffer key = ByteBuffer.allocateDirect(64);
    ByteBuffer value = ByteBuffer.allocateDirect(64);
    return time(prefix, n, expectFound, k -> {
      key.clear();
      key.put(k).flip();
      value.clear();
      if (db.get(read, key, value) == RocksDB.NOT_FOUND) {
        return false;
      }
      value.get(new byte[value.remaining()]); // copied out: a store hands its serde an array
      return true;
    });
  }

  /** Microseconds per lookup of {@code n} keys {@code prefix0...}, all found or none. */
  private static double time(String prefix, int n, boolean expectFound, Lookup lookup)
      throws Exception {
    byte[][] keys = new byte[n][];
    for (int i = 0; i < n; i++) {
      keys[i] = (prefix + i).getBytes(StandardCharsets.UTF_8);
    }
    long found = 0;
    long start = System.nanoTime();
    for (byte[] key : keys) {
      if (lookup.found(key)) {
        found++;
      }
    }
    long elapsed = System.nanoTime() - start;
    if ((found == n) != expectFound) {
      throw new IllegalStateException("found " + found + " of " + n + " " + prefix + " keys");
    }
    return elapsed / 1e3 / n;
  }
}
