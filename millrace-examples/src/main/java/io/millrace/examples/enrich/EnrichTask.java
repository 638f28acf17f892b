package io.millrace.examples.enrich;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import java.util.HashMap;
import java.util.Map;

/**
 * A stream-table join: {@code users} (a small reference table, {@code id,name,country}) is a
 * bootstrap stream, read to its end before any page view; each page view ({@code userId,page}) is
 * then written out with the user's name and country. A page view whose user is unknown is written
 * with {@code ?} so the gap shows.
 */
public final class EnrichTask implements StreamTask {
  private final Map<String, String> users = new HashMap<>();

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
      collector.send("enriched", view[0], view[1] + "," + users.getOrDefault(view[0], "?,?"));
    }
  }
}
