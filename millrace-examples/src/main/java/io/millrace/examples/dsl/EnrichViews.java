package io.millrace.examples.dsl;

import io.millrace.dsl.Joined;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.Table;
import io.millrace.dsl.serde.Serdes;

/**
 * Page views enriched with their user, in the DSL: a stream-table join. {@code users} (lines
 * {@code id,name,country}, the id the key) becomes a table in the store {@code users}; each page
 * view ({@code userId,page}) is joined with its user's current {@code name,country} and written
 * as {@code userId<TAB>page,name,country}, or with {@code ?,?} for a user the table does not
 * hold. Comment lines ({@code #}) are left out. The job reads the users first (a bootstrap
 * stream), as the task-written {@code enrich} example does, and writes what it writes.
 */
public final class EnrichViews implements StreamApplication {
  @Override
  public void describe(StreamGraph graph) {
    Table<String, String> users = graph.<String, String>stream("users")
        .filter((id, nameAndCountry) -> isRecord(id))
        .toTable(Stored.<String, String>as("users").withValueSerde(Serdes.string()));
    graph.<String, String>stream("pageviews")
        .filter((user, page) -> isRecord(user))
        .leftJoin(users, (page, user) -> page + "," + (user == null ? "?,?" : user),
            Joined.as("views-users"))
        .to("enriched");
  }

  private static boolean isRecord(String key) {
    return key != null && !key.isBlank() && !key.startsWith("#");
  }
}
