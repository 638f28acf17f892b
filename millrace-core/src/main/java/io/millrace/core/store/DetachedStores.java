package io.millrace.core.store;

import io.millrace.api.store.KeyValueStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A task's instances of its stores, opened but not attached: no commit sees them yet. They are
 * restored ({@link ChangelogRestorers}) on the state updater's thread, then attached on the loop's ({@link
 * StoreRegistry#attach}) or closed ({@link StoreRegistry#closeDetached}).
 *
 * @param taskNumber the task's number
 * @param instances its instance of every store
 * @param checkpointed per instance, its changelog offset in the checkpoint (or NONE, or no
 *     changelog)
 */
public record DetachedStores(int taskNumber, List<StoreInstance> instances, long[] checkpointed) {
  /** The task's stores by name. */
  public Map<String, KeyValueStore<?, ?>> stores() {
    Map<String, KeyValueStore<?, ?>> stores = new HashMap<>();
    for (StoreInstance instance : instances) {
      stores.put(instance.spec().name(), instance.store());
    }
    return stores;
  }

  /** Whether any of its stores has a changelog to restore from. */
  public boolean logged() {
    for (StoreInstance instance : instances) {
      if (instance.changelog() != null) {
        return true;
      }
    }
    return false;
  }
}
