package io.millrace.core.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** A store instance's local directory ({@code <job.state.dir>/stores/<store>/task-<n>}). */
final class StoreFiles {
  private StoreFiles() {}

  /** Where a task's instance of a store keeps its files. */
  static Path dir(Path storesDir, String store, int taskNumber) {
    return storesDir.resolve(store).resolve("task-" + taskNumber);
  }

  /** Deletes a store's local directory (a full restore rebuilds it). */
  static void wipe(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot delete store directory " + dir + ": " + e, e);
    }
  }
}
