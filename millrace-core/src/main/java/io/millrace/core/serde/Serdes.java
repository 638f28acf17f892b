package io.millrace.core.serde;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import java.lang.reflect.InvocationTargetException;

/** Turns a serde name from the job's properties into a serde. */
public final class Serdes {
  /** The names {@link #byName} understands, for error messages and docs. */
  public static final String ALLOWED =
      "bytes, string, long, integer, json, json:<class>, or a Serde class name";

  private Serdes() {}

  /**
   * The serde for a name.
   *
   * @param key the config key the name came from, for the error message
   * @param name {@code bytes}, {@code string}, {@code long}, {@code integer}, {@code json},
   *     {@code json:<class>} or the name of a class implementing {@link Serde}
   * @throws ConfigException naming the key and the value if the name is unknown
   */
  public static Serde<?> byName(String key, String name) {
    switch (name) {
      case "bytes":
        return new BytesSerde();
      case "string":
        return new StringSerde();
      case "long":
        return new LongSerde();
      case "integer":
        return new IntegerSerde();
      case "json":
        return new JsonSerde(Object.class);
      default:
        if (name.startsWith("json:")) {
          return new JsonSerde(load(key, name, name.substring(5)));
        }
        Class<?> type = load(key, name, name);
        if (!Serde.class.isAssignableFrom(type)) {
          throw new ConfigException(
              "bad value '" + name + "' for " + key + ": " + name + " is not a Serde; expected "
                  + ALLOWED);
        }
        try {
          return (Serde<?>) type.getDeclaredConstructor().newInstance();
        } catch (NoSuchMethodException | InstantiationException | IllegalAccessException
            | InvocationTargetException e) {
          throw new ConfigException("cannot create serde " + name + " for " + key
              + ": it needs a public no-argument constructor (" + e + ")");
        }
    }
  }

  private static Class<?> load(String key, String value, String className) {
    try {
      return Class.forName(className, true, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException e) {
      throw new ConfigException(
          "bad value '" + value + "' for " + key + ": no class " + className + "; expected "
              + ALLOWED);
    }
  }
}
