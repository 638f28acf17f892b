package io.millrace.core.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The changelog offset a persistent store's local files hold up to ({@code <dir>/CHANGELOG_OFFSET},
 * one decimal line), written at each commit after the engine is synced, so a restart replays only
 * the changelog after it. Written to a temporary file and renamed, so it is whole or absent.
 */
final class LocalOffsetFile {
  static final String NAME = "CHANGELOG_OFFSET";

  private LocalOffsetFile() {}

  /** The offset recorded in {@code dir}, or -1 if there is none (or it is unreadable). */
  static long read(Path dir) {
    Path file = dir.resolve(NAME);
    if (!Files.exists(file)) {
      return -1;
    }
    try {
      return Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim());
    } catch (IOException | NumberFormatException e) {
      return -1; // treated as unknown: the store is restored in full
    }
  }

  /** Forgets what {@code dir} holds: its files are then restored in full when next opened. */
  static void delete(Path dir) {
    try {
      Files.deleteIfExists(dir.resolve(NAME));
    } catch (IOException e) {
      throw new IllegalStateException("cannot delete " + dir.resolve(NAME) + ": " + e, e);
    }
  }

  /** Records {@code offset} for {@code dir}. */
  static void write(Path dir, long offset) {
    Path file = dir.resolve(NAME);
    Path temp = dir.resolve(NAME + ".tmp");
    try {
      Files.writeString(temp, offset + "\n", StandardCharsets.UTF_8);
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + file + ": " + e, e);
    }
  }
}
