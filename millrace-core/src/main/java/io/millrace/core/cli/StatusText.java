package io.millrace.core.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.Locale;

/** A running job's {@code /status} answer as lines of text, for {@code millrace status}. */
final class StatusText {
  private StatusText() {}

  /** Prints the job, its containers, each input partition and its stores. */
  static void print(JsonNode status, String page, PrintStream out) {
    long now = status.get("now").asLong();
    JsonNode totals = status.get("totals");
    out.println("job " + status.get("job").asText() + ": running for "
        + duration((now - status.get("startedAt").asLong()) / 1000.0) + ", "
        + number(totals.get("processed").asLong()) + " messages processed, "
        + number(totals.get("commits").asLong()) + " commits (status page: " + page + ")");
    for (JsonNode c : status.get("containers")) {
      JsonNode last = c.get("lastCommit");
      out.println("  container " + c.get("id").asInt() + ": " + c.get("tasks").asLong()
          + " task(s), " + number(c.get("processed").asLong()) + " processed, "
          + number(c.get("skipped").asLong()) + " skipped, "
          + number(c.get("deadLettered").asLong()) + " dead-lettered, last commit "
          + (last == null || last.isNull() ? "none yet"
              : duration((now - last.asLong()) / 1000.0) + " ago"));
      for (JsonNode p : c.get("partitions")) {
        out.println("    task " + p.get("task").asInt() + "  " + p.get("stream").asText() + "/"
            + p.get("partition").asInt() + "  offset " + p.get("offset").asLong() + "  lag "
            + lag(p) + "  " + number(Math.round(p.get("rate").asDouble())) + " msg/s"
            + progress(p));
      }
    }
    for (JsonNode s : status.get("stores")) {
      out.println("  store " + s.get("name").asText() + ": " + number(s.get("bytes").asLong())
          + " bytes on disk");
    }
  }

  private static String lag(JsonNode p) {
    long lag = p.get("lag").asLong();
    if (lag < 0) {
      return "unknown";
    }
    return (p.path("lagEstimated").asBoolean() ? "~" : "") + number(lag);
  }

  private static String progress(JsonNode p) {
    JsonNode done = p.get("progress");
    if (done == null || done.isNull()) {
      return "";
    }
    JsonNode left = p.get("secondsLeft");
    return String.format(Locale.ROOT, "  %.1f%% done", done.asDouble() * 100)
        + (left == null || left.isNull() || done.asDouble() >= 1 ? ""
            : ", " + duration(left.asDouble()) + " left");
  }

  private static String number(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  static String duration(double seconds) {
    long s = Math.round(seconds);
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return s / 60 + " min " + s % 60 + " s";
    }
    return s / 3600 + " h " + (s % 3600) / 60 + " min";
  }
}
