package io.millrace.bench.peers;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** {@code --name value} command-line options; unknown names are rejected so typos do not pass silently. */
final class BenchArgs {
  private final Map<String, String> values = new HashMap<>();

  BenchArgs(String[] args, Set<String> known) {
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("expected --name value pairs, got an odd number of arguments");
    }
    for (int i = 0; i < args.length; i += 2) {
      String name = args[i].startsWith("--") ? args[i].substring(2) : "";
      if (!known.contains(name)) {
        throw new IllegalArgumentException("unknown option " + args[i] + "; known: --" + String.join(", --", known));
      }
      values.put(name, args[i + 1]);
    }
  }

  String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  long positiveLong(String name, long fallback) {
    long value = values.containsKey(name) ? Long.parseLong(values.get(name).replace("_", "")) : fallback;
    if (value <= 0) {
      throw new IllegalArgumentException("--" + name + " must be positive");
    }
    return value;
  }

  boolean onOff(String name, boolean fallback) {
    String value = values.get(name);
    if (value == null) {
      return fallback;
    }
    return switch (value) {
      case "on" -> true;
      case "off" -> false;
      default -> throw new IllegalArgumentException("--" + name + " takes on or off, got " + value);
    };
  }
}
