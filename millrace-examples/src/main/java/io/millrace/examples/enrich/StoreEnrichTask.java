package io.millrace.examples.enrich;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.store.KeyValueStore;

/**
 * A stream-table join with the table in a store: {@code users} ({@code id,name,country}) is a
 * bootstrap stream, read to its end before any page view, into the store {@code users}; each page
 * view ({@code userId,page}) is written out with the user's name and country from the store
 * ({@code ?,?} for an unknown user). Unlike {@link EnrichTask}'s map, the table survives a restart
 * without re-reading it, and may be larger than the heap.
 */
public final class StoreEnrichTask implements StreamTask, InitableTask {
  private KeyValueStore<String, String> users;

  @Override
  public void init(TaskContext context) {
    users = context.store("users");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    String line = (String) envelope.value();
    if (Records.skip(line)) {
      return;
    }
    if (envelope.stream().equals("users")) {
      String[] user = Records.user(line);
      users.put(user[0], user[1]);
    } else {
      String[] view = Records.pageView(line);
      String user = users.get(view[0]);
      collector.send("enriched", view[0], view[1] + "," + (user == null ? "?,?" : user));
    }
  }
}
