package io.millrace.bench.support;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

  /**
   * Refuses any option not in {@code known}, before a benchmark spends minutes on set-up with a
   * misspelt one ignored.
   *
   * @throws IllegalArgumentException naming the unknown options and the known ones
   */
  public Args only(String... known) {
    Set<String> allowed = Set.of(known);
    List<String> unknown = values.keySet().stream().filter(k -> !allowed.contains(k))
        .sorted().map(k -> "--" + k).toList();
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown option(s) " + unknown + "; known: "
          + Arrays.stream(known).sorted().map(k -> "--" + k).toList());
    }
    return this;
  }

  /**
   * A comma-separated list option whose every item must be one of {@code allowed}.
   *
   * @throws IllegalArgumentException naming the option, the bad items and the allowed ones
   */
  public List<String> getList(String name, String defaultValue,
      List<String> allowed) {
    List<String> items = Arrays.stream(get(name, defaultValue).split(","))
        .map(String::trim).filter(v -> !v.isEmpty()).toList();
    List<String> bad = items.stream().filter(v -> !allowed.contains(v)).toList();
    if (!bad.isEmpty() || items.isEmpty()) {
      throw new IllegalArgumentException("--" + name + ": " + (items.isEmpty() ? "empty"
          : "unknown value(s) " + bad) + "; allowed: " + String.join(",", allowed));
    }
    return items;
  }

  /**
   * A {@code key=value[,key=value]} option ({@code --set}): settings a benchmark adds to its
   * job's, in order; empty if the option is absent.
   *
   * @throws IllegalArgumentException naming the option and the item without a key
   */
  public Map<String, String> getSettings(String name) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String kv : get(name, "").split(",")) {
      if (kv.isBlank()) {
        continue;
      }
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--" + name + " takes key=value[,key=value], got '"
            + kv + "'");
      }
      settings.put(kv.substring(0, eq).trim(), kv.substring(eq + 1));
    }
    return settings;
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
