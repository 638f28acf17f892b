package io.millrace.bench.support;

import java.io.BufferedReader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A benchmark run in a child JVM (a fresh one per run): its output echoed to our stderr, its
 * RESULT line parsed into key=value pairs; a run that exits badly or prints none fails, with its
 * last error line.
 */
public final class ChildRun {
  private ChildRun() {}

  /** Runs {@code command}; {@code name} prefixes its echoed lines. */
  public static Map<String, String> run(String name, List<String> command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String result = null;
    StringBuilder tail = new StringBuilder();
    try (BufferedReader out = process.inputReader()) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith("RESULT ")) {
          result = line;
        } else if (!line.isBlank()) {
          System.err.println("  [" + name + "] " + line);
          if (line.contains("Exception") || line.startsWith("error")) {
            tail.setLength(0);
            tail.append(line);
          }
        }
      }
    }
    int exit = process.waitFor();
    if (exit != 0 || result == null) {
      throw new IllegalStateException(name + " exited with " + exit + " without a RESULT line"
          + (tail.length() > 0 ? " (" + tail + ")" : ""));
    }
    Map<String, String> values = new HashMap<>();
    for (String field : result.split("\\s+")) {
      int eq = field.indexOf('=');
      if (eq > 0) {
        values.put(field.substring(0, eq), field.substring(eq + 1));
      }
    }
    return values;
  }
}
