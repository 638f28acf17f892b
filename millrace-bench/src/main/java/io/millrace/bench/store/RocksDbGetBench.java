package io.millrace.bench.store;

import io.millrace.bench.Args;
import io.millrace.bench.TempDirs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The floor under a store read: bare RocksDB (default options, no Millrace) holding N keys, then N
 * {@code get}s of keys it does not hold and N of keys it holds, timed one by one. Prints the
 * rocksdbjni version on the classpath with {@code RESULT rocksdb-get miss_us=... hit_us=...}.
 * To compare versions, run this class with another rocksdbjni jar first on the classpath.
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
      double miss = 0;
      double hit = 0;
      for (int round = 0; round < 2; round++) { // the second round is the one reported (warm)
        miss = time(db, "nokey-", keys, false);
        hit = time(db, "key-", keys, true);
      }
      System.out.printf(Locale.ROOT, "RESULT rocksdb-get rocksdb=%s keys=%d miss_us=%.3f "
          + "hit_us=%.3f%n", RocksDB.rocksdbVersion(), keys, miss, hit);
    } finally {
      TempDirs.deleteRecursively(dir);
    }
  }

  private static double time(RocksDB db, String prefix, int n, boolean expectFound)
      throws Exception {
    byte[][] keys = new byte[n][];
    for (int i = 0; i < n; i++) {
      keys[i] = (prefix + i).getBytes(StandardCharsets.UTF_8);
    }
    long found = 0;
    long start = System.nanoTime();
    for (byte[] key : keys) {
      if (db.get(key) != null) {
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
