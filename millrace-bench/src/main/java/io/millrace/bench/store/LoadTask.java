package io.millrace.bench.store;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.store.KeyValueStore;

/** Puts every message's key and value into the store "data" (builds a store to restore). */
public final class LoadTask implements StreamTask, InitableTask {
  private KeyValueStore<Object, Object> data;

  @Override
  public void init(TaskContext context) {
    data = context.store("data");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    data.put(envelope.key(), envelope.value());
  }
}
