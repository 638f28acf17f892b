package io.millrace.core.store;

import io.millrace.api.StreamPartition;
import java.nio.file.Path;

/**
 * One task's instance of one store, with what restoring and committing it needs.
 *
 * @param spec the store
 * @param taskNumber the task's partition number
 * @param changelogNumber its partition of the store's changelog ({@link ChangelogPartitions})
 * @param store the store the task uses
 * @param dir its local directory (persistent engines)
 * @param changelog where its changes go, or null
 * @param localOffset the changelog offset its local files hold up to, or -1 if unknown
 */
public record StoreInstance(StoreSpec spec, int taskNumber, int changelogNumber,
    CachedStore<?, ?> store, Path dir, ChangelogWriter changelog, long localOffset) {

  /** An instance whose changelog partition is its task's number (Millrace's own order). */
  public StoreInstance(StoreSpec spec, int taskNumber, CachedStore<?, ?> store, Path dir,
      ChangelogWriter changelog, long localOffset) {
    this(spec, taskNumber, taskNumber, store, dir, changelog, localOffset);
  }

  /**
   * The engine that holds its committed state, which a restore writes to: under exactly-once the
   * store's engine stages writes in front of it ({@link StagedEngine}).
   */
  public io.millrace.spi.engine.StorageEngine engine() {
    return store.engine() instanceof StagedEngine staged ? staged.engine() : store.engine();
  }

  /** Its changelog partition as checkpoints name it (the store must have a changelog). */
  public StreamPartition changelogPartition() {
    return new StreamPartition(spec.changelogSystem(), spec.changelogId(), changelogNumber);
  }
}
