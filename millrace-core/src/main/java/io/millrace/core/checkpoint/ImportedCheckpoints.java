package io.millrace.core.checkpoint;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.spi.system.SystemProducer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A job's checkpoint store seen through the offsets it imported from another runtime
 * ({@code task.checkpoint.import}): a partition the store has no offset for reads the imported
 * one; every write goes to the store, so from the first commit on the job's own checkpoints win.
 * Made only when the store held nothing for the job at start.
 */
public final class ImportedCheckpoints implements CheckpointStore {
  private final CheckpointStore store;
  private final Map<StreamPartition, Long> imported;

  /** The store, with the imported offsets under its own. */
  public ImportedCheckpoints(CheckpointStore store, Map<StreamPartition, Long> imported) {
    this.store = store;
    this.imported = Map.copyOf(imported);
  }

  /** The same imported offsets under another store (a coordinator's, which keeps its own). */
  public CheckpointStore over(CheckpointStore other) {
    return other == store ? this : new ImportedCheckpoints(other, imported);
  }

  @Override
  public Map<StreamPartition, Long> read() {
    Map<StreamPartition, Long> all = new HashMap<>(imported);
    all.putAll(store.read());
    return all;
  }

  @Override
  public Map<StreamPartition, Long> read(Set<Integer> partitions) {
    Map<StreamPartition, Long> all = new HashMap<>();
    imported.forEach((p, offset) -> {
      if (partitions.contains(p.partition())) {
        all.put(p, offset);
      }
    });
    all.putAll(store.read(partitions));
    return all;
  }

  @Override
  public CheckpointWriter writer(int containerId, List<StreamPartition> partitions) {
    return store.writer(containerId, partitions);
  }

  @Override
  public CheckpointWriter writer(int containerId, List<StreamPartition> partitions,
      List<SystemProducer> producers) {
    return store.writer(containerId, partitions, producers);
  }

  @Override
  public void close() {
    store.close();
  }
}
