package io.millrace.samza.config;

import io.millrace.api.config.JobConfig;

/**
 * Reads a stream's Samza properties where Samza looks for them, first match wins:
 * {@code streams.<stream id>.<property>} (the stream ids whose {@code samza.system} and
 * {@code samza.physical.name} are the stream's), {@code systems.<system>.streams.<physical
 * name>.<property>}, {@code systems.<system>.default.stream.<property>}; serdes and the offset
 * default also fall back to the system's {@code systems.<system>.<property>}.
 */
public final class StreamKeys {
  public static final String KEY_SERDE = "samza.key.serde";
  public static final String MSG_SERDE = "samza.msg.serde";
  public static final String OFFSET_DEFAULT = "samza.offset.default";
  public static final String RESET_OFFSET = "samza.reset.offset";
  public static final String BOOTSTRAP = "samza.bootstrap";
  public static final String PRIORITY = "samza.priority";

  private final JobConfig config;

  public StreamKeys(JobConfig config) {
    this.config = config;
  }

  /** A key of the stream that holds {@code property}, or null if none does. */
  public String keyOf(String system, String physicalName, String property) {
    for (String id : config.idsUnder("streams")) {
      String p = "streams." + id + ".";
      if (system.equals(config.get(p + "samza.system", config.get("job.default.system")))
          && physicalName.equals(config.get(p + "samza.physical.name", id))
          && config.get(p + property) != null) {
        return p + property;
      }
    }
    String old = "systems." + system + ".streams." + physicalName + "." + property;
    if (config.get(old) != null) {
      return old;
    }
    String fallback = "systems." + system + ".default.stream." + property;
    if (config.get(fallback) != null) {
      return fallback;
    }
    if (property.equals(KEY_SERDE) || property.equals(MSG_SERDE)
        || property.equals(OFFSET_DEFAULT)) {
      String systemWide = "systems." + system + "." + property;
      if (config.get(systemWide) != null) {
        return systemWide;
      }
    }
    return null;
  }
}
