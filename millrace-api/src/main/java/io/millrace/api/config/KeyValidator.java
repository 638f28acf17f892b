package io.millrace.api.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Rejects unknown keys, suggesting the nearest known one, so that a typo ({@code task.comit.ms})
 * stops the job at start instead of being silently ignored.
 */
public final class KeyValidator {
  private KeyValidator() {}

  /**
   * Whether {@code suffix} is allowed by {@code patterns}: an exact match, or a pattern ending in
   * {@code .*} that is a prefix of it.
   */
  public static boolean allowed(String suffix, Set<String> patterns) {
    if (patterns.contains(suffix)) {
      return true;
    }
    for (String pattern : patterns) {
      if (pattern.endsWith(".*")
          && suffix.startsWith(pattern.substring(0, pattern.length() - 1))
          && suffix.length() > pattern.length() - 1) {
        return true;
      }
    }
    return false;
  }

  /** The error for an unknown key, with the nearest candidate if one is close. */
  public static ConfigException unknown(
      String key, String value, String source, Collection<String> candidates) {
    String nearest = null;
    int best = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = distance(key, candidate);
      if (distance < best) {
        best = distance;
        nearest = candidate;
      }
    }
    String hint = nearest != null && best <= Math.max(2, key.length() / 5)
        ? " (did you mean " + nearest + "?)"
        : "";
    return new ConfigException("unknown key " + key + " (value '" + value + "') in " + source + hint
        + "; every key is listed in docs/configuration.md");
  }

  /** Candidate full keys from a prefix and suffix patterns, for suggestions. */
  public static List<String> expand(String prefix, Set<String> patterns) {
    List<String> keys = new ArrayList<>();
    for (String pattern : patterns) {
      keys.add(prefix + pattern);
    }
    return keys;
  }

  /** Levenshtein distance: the key sets are small and this runs once at start. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
