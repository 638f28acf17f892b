package io.millrace.samza.serde;

import io.millrace.api.config.JobConfig;

/**
 * Samza serdes whose bytes one of Millrace's own serdes makes: Samza's {@code StringSerde} in
 * UTF-8 (Millrace's {@code string}) and {@code LongSerde}, eight bytes big-endian (Millrace's
 * {@code long}). A store with one of them is given Millrace's serde, so Millrace's store caches
 * the task's objects and serializes at its flushes, as for a Millrace task, instead of the adapter
 * running Samza's serde on every call (a store count ran 12% slower that way: docs/benchmarks.md,
 * peers-samza-task); its files and changelog hold the same bytes either way.
 */
public enum SameBytesSerde {
  STRING("string", String.class, "org.apache.samza.serializers.StringSerdeFactory"),
  LONG("long", Long.class, "org.apache.samza.serializers.LongSerdeFactory");

  private final String millraceName;
  private final Class<?> type;
  private final String samzaFactory;

  SameBytesSerde(String millraceName, Class<?> type, String samzaFactory) {
    this.millraceName = millraceName;
    this.type = type;
    this.samzaFactory = samzaFactory;
  }

  /** The name of Millrace's serde. */
  public String millraceName() {
    return millraceName;
  }

  /** The class Samza's serde takes: another is refused, as Samza's cast refuses it. */
  public Class<?> type() {
    return type;
  }

  /**
   * The Millrace serde of the Samza serde called {@code name} in {@code config}, or null if
   * Millrace has none that makes its bytes (another factory, a serialized instance, or a string
   * serde in another encoding: Samza's factory reads the job's {@code encoding} key).
   */
  public static SameBytesSerde of(JobConfig config, String name) {
    if (name == null || config.get(SerdeRegistry.instanceKey(name)) != null) {
      return null;
    }
    String factory = config.get(SerdeRegistry.factoryKey(name),
        SerdeRegistry.PREDEFINED.get(name));
    if (STRING.samzaFactory.equals(factory)) {
      String encoding = config.get("encoding", "UTF-8");
      return encoding.equalsIgnoreCase("UTF-8") || encoding.equalsIgnoreCase("UTF8")
          ? STRING : null;
    }
    return LONG.samzaFactory.equals(factory) ? LONG : null;
  }
}
