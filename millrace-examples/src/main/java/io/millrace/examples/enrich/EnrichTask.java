package io.millrace.examples.enrich;

import io.millrace.api.Collector;
import io.millrace.api.Coordinator;
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
  public void process(Envelope envelope, Collector collector, Coordinator coordinator) {
    String line = (String) envelope.value();
    if (line.isBlank() || line.startsWith("#")) {
      return;
    }
    String[] fields = line.split(",", -1);
    if (envelope.stream().equals("users")) {
      if (fields.length != 3) {
        throw new IllegalArgumentException("a user line needs id,name,country: " + line);
      }
      users.put(fields[0].trim(), fields[1].trim() + "," + fields[2].trim());
    } else {
      if (fields.length != 2) {
        throw new IllegalArgumentException("a page view line needs userId,page: " + line);
      }
      String user = users.getOrDefault(fields[0].trim(), "?,?");
      collector.send("enriched", fields[0].trim(), fields[1].trim() + "," + user);
    }
  }
}
