package io.millrace.core.commit;

import io.millrace.api.StreamPartition;

/**
 * An input partition a checkpoint holds: its name, and how far it is processed. The loop's
 * partition state is one; the commit package knows it only through this, so it does not depend
 * on the loop.
 */
public interface CheckpointedInput {
  /** The partition, as checkpoints name it. */
  StreamPartition id();

  /**
   * The offset of the last message processed (for an async task, the watermark below which every
   * message completed), or {@code CheckpointStore.NONE}. Read on the loop thread at a commit.
   */
  long lastOffset();
}
