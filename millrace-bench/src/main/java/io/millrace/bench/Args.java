package io.millrace.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} options of a benchmark, with defaults. */
public final class Args {
  private final Map<String, String> values = new HashMap<>();

  /** Parses {@code --name value} pairs. */
  public Args(String[] args, int from) {
    for (int i = from; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value, got '" + args[i] + "'");
      }
      values.put(args[i].substring(2), args[++i]);
    }
  }

  /** A string option. */
  public String get(String name, String defaultValue) {
    return values.getOrDefault(name, defaultValue);
  }

  /** A numeric option (underscores allowed: 10_000_000). */
  public long getLong(String name, long defaultValue) {
    String v = values.get(name);
    return v == null ? defaultValue : Long.parseLong(v.replace("_", ""));
  }
}
