package io.millrace.core.config;

import io.millrace.api.config.JobConfig;

/**
 * Reads a key whose value may be any integer, negative ones included ({@code task.commit.ms},
 * {@code task.window.ms}): its error says what the value means, where {@link JobConfig#getLong}'s
 * bound would say "at least -9223372036854775808".
 */
public final class AnyInteger {
  private AnyInteger() {}

  /**
   * The key's value, or {@code defaultValue} if it has none.
   *
   * @param allowed what the value may be, for the error (e.g. "an integer, in milliseconds (-1: off)")
   * @throws io.millrace.api.config.ConfigException naming the key and the value if it is not an
   *     integer
   */
  public static long of(JobConfig config, String key, long defaultValue, String allowed) {
    String raw = config.get(key);
    if (raw == null) {
      return defaultValue;
    }
    try {
      return Long.parseLong(raw.replace("_", ""));
    } catch (NumberFormatException e) {
      throw config.bad(key, raw, allowed);
    }
  }
}
