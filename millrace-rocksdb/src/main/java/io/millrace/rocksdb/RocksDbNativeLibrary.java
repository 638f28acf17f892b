package io.millrace.rocksdb;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads RocksDB's native library from one copy per library build and user, extracted once.
 * RocksDB's own loader extracts a new temporary copy (14 MB) for every JVM and deletes it only at
 * a clean exit, so every process killed with SIGKILL leaves one behind: a process restarted in a
 * loop, or a crash test, fills the disk (3,147 copies, 44 GB, on the machine this was found on).
 * Where anything here fails, RocksDB's own loader runs instead.
 */
final class RocksDbNativeLibrary {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDbNativeLibrary.class);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rwx------");

  private RocksDbNativeLibrary() {}

  /** Loads the library once per JVM (RocksDB ignores later calls). */
  static void load() {
    try {
      Path dir = extracted();
      if (dir != null) {
        RocksDB.loadLibrary(List.of(dir.toString()));
        return;
      }
    } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
      LOG.debug("RocksDB's native library is loaded by RocksDB's own loader: {}", e.toString());
    }
    RocksDB.loadLibrary();
  }

  /**
   * The directory holding the library under the name {@code RocksDB.loadLibrary(paths)} looks
   * for, extracted now if it is not there yet; null where the library is not in a jar.
   */
  private static Path extracted() throws IOException {
    String resource = Environment.getJniLibraryFileName("rocksdb"); // its name in the jar
    Path jar;
    try {
      jar = Path.of(RocksDB.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | NullPointerException e) {
      return null;
    }
    if (!Files.isRegularFile(jar)) {
      return null;
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      JarEntry entry = file.getJarEntry(resource);
      if (entry == null || entry.getCrc() < 0) {
        return null;
      }
      Path dir = Path.of(System.getProperty("java.io.tmpdir"), "millrace-rocksdbjni-"
          + Long.toHexString(entry.getCrc()) + "-" + System.getProperty("user.name"));
      // Where RocksDB.loadLibrary(paths) looks: the same call RocksDB makes, so the name follows
      // the library's own version.
      String name = Environment.getJniLibraryFileName("rocksdbjni");
      try (InputStream in = file.getInputStream(entry)) {
        return extractOnce(in, entry.getSize(), dir, name);
      }
    }
  }

  /**
   * Puts {@code size} bytes of {@code in} at {@code dir/name} unless a file of that size is there
   * already; the directory is this user's only (a file another user could have put there is
   * never loaded: {@link IOException} then). Concurrent processes each write their own temporary
   * file and move it into place atomically.
   */
  static Path extractOnce(InputStream in, long size, Path dir, String name) throws IOException {
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (java.nio.file.FileAlreadyExistsException e) {
        // another process made it meanwhile: checked below like any other
      }
    }
    if (!Files.getOwner(dir).getName().equals(System.getProperty("user.name"))
        || !Files.getPosixFilePermissions(dir).equals(OWNER_ONLY)) {
      throw new IOException(dir + " is not this user's alone");
    }
    Path target = dir.resolve(name);
    if (Files.isRegularFile(target) && Files.size(target) == size) {
      return dir;
    }
    Path part = Files.createTempFile(dir, name, ".part");
    try {
      Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
      if (Files.size(part) != size) {
        throw new IOException("extracted " + Files.size(part) + " of " + size + " bytes");
      }
      Files.move(part, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(part);
    }
    return dir;
  }
}
