package io.millrace.core.config;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A job's {@code .properties} file as the command line, {@code Millrace.start(Path)} and the test
 * driver read it: what is wrong with it is named with its line; a relative path in it is relative
 * to the file's folder ({@link PathKeys}), so a job runs the same from any directory; then the
 * command line's {@code --set} overrides go on top, their paths relative to the current directory
 * like any command-line argument's.
 */
public final class JobFile {
  private JobFile() {}

  /**
   * Reads {@code file} and applies {@code overrides} on top.
   *
   * @param overrides keys and values given on the command line (already checked: see
   *     {@link #override})
   * @throws ConfigException naming the file (and the line) if it cannot be read or parsed
   */
  public static JobConfig load(Path file, Map<String, String> overrides) {
    Map<String, String> values = read(file);
    Path folder = file.toAbsolutePath().normalize().getParent();
    Map<String, String> merged = new TreeMap<>(values);
    merged.putAll(overrides);
    PathKeys.resolve(merged, overrides.keySet(), folder);
    return new JobConfig(merged, file.toString());
  }

  /** As {@link #load(Path, Map)}, the overrides given as {@code key=value} strings. */
  public static JobConfig load(Path file, List<String> overrides) {
    Map<String, String> parsed = new LinkedHashMap<>();
    for (String override : overrides) {
      override(override, parsed);
    }
    return load(file, parsed);
  }

  /**
   * Parses one {@code --set key=value} into {@code into} (key and value trimmed, as a file's).
   *
   * @throws ConfigException if it has no '=' or nothing before it
   */
  public static void override(String override, Map<String, String> into) {
    int eq = override.indexOf('=');
    if (eq < 0) {
      throw new ConfigException("--set " + override + " is not of the form key=value");
    }
    String key = override.substring(0, eq).trim();
    if (key.isEmpty()) {
      throw new ConfigException("--set " + override + " has no key before its '=' (the form is "
          + "--set key=value)");
    }
    into.put(key, override.substring(eq + 1).trim());
  }

  /** The file's keys and values (values trimmed); its first bad line is an error naming it. */
  static Map<String, String> read(Path file) {
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().decode(
          java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
    } catch (NoSuchFileException e) {
      throw new ConfigException("job file " + file + " does not exist (looked for "
          + file.toAbsolutePath().normalize() + ")");
    } catch (CharacterCodingException e) {
      throw new ConfigException("job file " + file + " is not UTF-8 text");
    } catch (IOException e) {
      throw new ConfigException("cannot read job file " + file + ": " + (Files.isDirectory(file)
          ? "it is a directory" : e.getMessage()));
    }
    PropertiesLines.check(file, text);
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(text));
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException("cannot read job file " + file + ": " + e.getMessage());
    }
    Map<String, String> values = new TreeMap<>();
    for (String name : properties.stringPropertyNames()) {
      values.put(name, properties.getProperty(name).trim());
    }
    return values;
  }
}
