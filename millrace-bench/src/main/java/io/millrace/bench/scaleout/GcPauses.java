package io.millrace.bench.scaleout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stop-the-world pauses a child JVM logged ({@link #OPTION}), to tell a gap in a task's output
 * that was its process's collector from one that was the job's own: on two shared cores a young
 * collection of 20-40 ms of CPU stood 90-140 ms on the clock, as long as the longest gaps.
 */
final class GcPauses {
  /** The child's option: its pauses, each line stamped with the epoch milliseconds it ended. */
  static final String OPTION = "-Xlog:gc:file=%s:timemillis";
  /** The log's name in a process's home; the JVM puts its pid for {@code %p}. */
  static final String FILE = "gc-%p.log";

  /** {@code [1764094594268ms] GC(21) Pause Young (Normal) (G1 Evacuation Pause) ... 96.084ms}. */
  private static final Pattern PAUSE =
      Pattern.compile("^\\[(\\d+)ms\\].* Pause .* ([0-9]+(?:\\.[0-9]+)?)ms$");

  private GcPauses() {}

  /** The option that logs a child's pauses into its home. */
  static String option(Path home) {
    return String.format(OPTION, home.resolve(FILE));
  }

  /**
   * How many milliseconds of process {@code pid}'s pauses (its log in {@code home}) fall inside
   * {@code [fromMs, toMs]}; -1 if it has no log.
   */
  static long within(Path home, long pid, long fromMs, long toMs) throws IOException {
    Path log = home.resolve(FILE.replace("%p", Long.toString(pid)));
    if (!Files.exists(log)) {
      return -1;
    }
    return within(Files.readAllLines(log), fromMs, toMs);
  }

  /** As {@link #within(Path, long, long, long)}, over the log's lines. */
  static long within(List<String> lines, long fromMs, long toMs) {
    double total = 0;
    for (String line : lines) {
      Matcher m = PAUSE.matcher(line);
      if (m.matches()) {
        double end = Long.parseLong(m.group(1));
        double start = end - Double.parseDouble(m.group(2));
        total += Math.max(0, Math.min(end, toMs) - Math.max(start, fromMs));
      }
    }
    return Math.round(total);
  }
}
