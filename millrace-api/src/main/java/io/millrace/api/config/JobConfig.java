package io.millrace.api.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A job's configuration: the {@code .properties} file plus {@code --set} overrides, with typed
 * getters whose errors name the key, the value and what is allowed. Immutable.
 */
public final class JobConfig {
  private final Map<String, String> values;
  private final String source;

  /**
   * Creates a configuration from a map.
   *
   * @param values the keys and values
   * @param source where they came from, for error messages
   */
  public JobConfig(Map<String, String> values, String source) {
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
    this.source = source;
  }

  /** Creates a configuration from a map, for tests and embedding. */
  public static JobConfig of(Map<String, String> values) {
    return new JobConfig(values, "the job's configuration");
  }

  /**
   * Reads a {@code .properties} file and applies {@code key=value} overrides on top.
   *
   * @throws ConfigException naming the file if it cannot be read, or an override without '='
   */
  public static JobConfig load(Path file, List<String> overrides) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (NoSuchFileException e) {
      throw new ConfigException("job file " + file + " does not exist");
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException("cannot read job file " + file + ": " + e.getMessage());
    }
    Map<String, String> values = values(properties);
    for (String override : overrides) {
      int eq = override.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException(
            "--set " + override + " is not of the form key=value");
      }
      values.put(override.substring(0, eq).trim(), override.substring(eq + 1).trim());
    }
    return new JobConfig(values, file.toString());
  }

  /** A configuration from {@link Properties} (values trimmed, as a file's are). */
  public static JobConfig of(Properties properties) {
    return new JobConfig(values(properties), "the job's properties");
  }

  private static Map<String, String> values(Properties properties) {
    Map<String, String> values = new TreeMap<>();
    for (String name : properties.stringPropertyNames()) {
      values.put(name, properties.getProperty(name).trim());
    }
    return values;
  }

  /** All keys and values. */
  public Map<String, String> asMap() {
    return values;
  }

  /** Where the configuration came from. */
  public String source() {
    return source;
  }

  /** The value of a key, or {@code null}. */
  public String get(String key) {
    String value = values.get(key);
    return value == null || value.isEmpty() ? null : value;
  }

  /** The value of a key, or a default. */
  public String get(String key, String defaultValue) {
    String value = get(key);
    return value == null ? defaultValue : value;
  }

  /** The value of a required key. */
  public String required(String key) {
    String value = get(key);
    if (value == null) {
      throw new ConfigException("missing required key " + key + " in " + source);
    }
    return value;
  }

  /** An integer key with a lower bound. */
  public int getInt(String key, int defaultValue, int min) {
    long value = getLong(key, defaultValue, min);
    if (value > Integer.MAX_VALUE) {
      throw bad(key, get(key), "an integer from " + min + " to " + Integer.MAX_VALUE);
    }
    return (int) value;
  }

  /** A long key with a lower bound. */
  public long getLong(String key, long defaultValue, long min) {
    String raw = get(key);
    if (raw == null) {
      return defaultValue;
    }
    long value;
    try {
      value = Long.parseLong(raw.replace("_", ""));
    } catch (NumberFormatException e) {
      throw bad(key, raw, "an integer of at least " + min);
    }
    if (value < min) {
      throw bad(key, raw, "an integer of at least " + min);
    }
    return value;
  }

  /** A boolean key: {@code true} or {@code false}, nothing else. */
  public boolean getBoolean(String key, boolean defaultValue) {
    String raw = get(key);
    if (raw == null) {
      return defaultValue;
    }
    switch (raw.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw bad(key, raw, "true or false");
    }
  }

  /** A key whose value must be one of {@code allowed}. */
  public String getChoice(String key, String defaultValue, String... allowed) {
    String raw = get(key, defaultValue);
    for (String option : allowed) {
      if (option.equals(raw)) {
        return option;
      }
    }
    throw bad(key, raw, "one of " + String.join(" | ", allowed));
  }

  /** A comma-separated list (empty entries dropped). */
  public List<String> getList(String key) {
    String raw = get(key);
    List<String> items = new ArrayList<>();
    if (raw != null) {
      for (String item : raw.split(",")) {
        if (!item.isBlank()) {
          items.add(item.trim());
        }
      }
    }
    return items;
  }

  /** The keys under {@code prefix}, with the prefix removed. */
  public Map<String, String> withPrefix(String prefix) {
    Map<String, String> result = new TreeMap<>();
    for (Map.Entry<String, String> entry : values.entrySet()) {
      if (entry.getKey().startsWith(prefix)) {
        result.put(entry.getKey().substring(prefix.length()), entry.getValue());
      }
    }
    return Collections.unmodifiableMap(result);
  }

  /** The distinct {@code <x>} of keys {@code <group>.<x>.<rest>}, e.g. stream ids or system names. */
  public Set<String> idsUnder(String group) {
    Set<String> ids = new TreeSet<>();
    String prefix = group + ".";
    for (String key : values.keySet()) {
      if (key.startsWith(prefix)) {
        int dot = key.indexOf('.', prefix.length());
        if (dot > prefix.length()) {
          ids.add(key.substring(prefix.length(), dot));
        }
      }
    }
    return ids;
  }

  /** Builds the error for a bad value. */
  public ConfigException bad(String key, String value, String allowed) {
    return new ConfigException(
        "bad value '" + value + "' for " + key + " in " + source + ": expected " + allowed);
  }
}
