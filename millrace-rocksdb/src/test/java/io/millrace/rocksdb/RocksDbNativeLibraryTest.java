package io.millrace.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.util.Environment;

/** One extracted copy of RocksDB's native library per build and user, not one per JVM. */
class RocksDbNativeLibraryTest {
  @TempDir
  Path tmp;

  private static InputStream bytes(int n) {
    return new ByteArrayInputStream(new byte[n]);
  }

  /** A stream that fails if read: the copy in place must be reused without reading the jar. */
  private static final InputStream NOT_TO_BE_READ = new InputStream() {
    @Override
    public int read() throws IOException {
      throw new IOException("read again");
    }
  };

  @Test
  void theLibraryIsExtractedOnceAndReusedByTheNextProcess() throws Exception {
    Path dir = tmp.resolve("millrace-rocksdbjni-test");
    assertThat(RocksDbNativeLibrary.extractOnce(bytes(1000), 1000, dir, "lib.so")).isEqualTo(dir);
    assertThat(Files.size(dir.resolve("lib.so"))).isEqualTo(1000);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
        .isEqualTo("rwx------");

    RocksDbNativeLibrary.extractOnce(NOT_TO_BE_READ, 1000, dir, "lib.so");
    try (var files = Files.list(dir)) {
      assertThat(files).as("no temporary copy left").hasSize(1);
    }
  }

  @Test
  void aTruncatedCopyIsReplaced() throws Exception {
    Path dir = tmp.resolve("millrace-rocksdbjni-test");
    RocksDbNativeLibrary.extractOnce(bytes(10), 10, dir, "lib.so");
    RocksDbNativeLibrary.extractOnce(bytes(1000), 1000, dir, "lib.so");
    assertThat(Files.size(dir.resolve("lib.so"))).isEqualTo(1000);
  }

  @Test
  void aShortReadLeavesNoCopyBehind() throws Exception {
    Path dir = tmp.resolve("millrace-rocksdbjni-test");
    assertThatThrownBy(() -> RocksDbNativeLibrary.extractOnce(bytes(500), 1000, dir, "lib.so"))
        .isInstanceOf(IOException.class).hasMessageContaining("500 of 1000 bytes");
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aDirectoryOthersCanWriteIsNeverLoadedFrom() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("millrace-rocksdbjni-shared"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> RocksDbNativeLibrary.extractOnce(bytes(10), 10, dir, "lib.so"))
        .isInstanceOf(IOException.class).hasMessageContaining(dir.toString())
        .hasMessageContaining("not this user's alone");
  }

  @Test
  void theFactoryLoadsRocksDbFromTheOneCopy() throws Exception {
    Class.forName(RocksDbEngineFactory.class.getName()); // its static initializer loads it
    String name = Environment.getJniLibraryFileName("rocksdbjni");
    try (var dirs = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      assertThat(dirs.filter(d -> d.getFileName().toString().startsWith("millrace-rocksdbjni-"))
          .anyMatch(d -> Files.isRegularFile(d.resolve(name)))).isTrue();
    }
    try (org.rocksdb.Options options = new org.rocksdb.Options()) {
      assertThat(options).isNotNull(); // the library works
    }
  }
}
