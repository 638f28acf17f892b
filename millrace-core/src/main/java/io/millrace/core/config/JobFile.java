package io.millrace.core.config;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    Map<String, String> merged = merged(file, overrides);
    PathKeys.resolve(merged, overrides.keySet(), folder(file));
    return new JobConfig(merged, file.toString());
  }

  private static Map<String, String> merged(Path file, Map<String, String> overrides) {
    Map<String, String> merged = new TreeMap<>(read(file));
    merged.putAll(overrides);
    return merged;
  }

  private static Path folder(Path file) {
    return file.toAbsolutePath().normalize().getParent();
  }

  /**
   * {@code message} (an error about the job read from {@code file}) with each path of the file it
   * names explained: the value as written (or its default) and the folder it is relative to, e.g.
   * {@code file or directory /home/me/data/in.txt does not exist
   * (streams.in.physical.name=../data/in.txt in jobs/in.properties, relative to its folder
   * /home/me/jobs)}. A message that names none is returned as it is.
   */
  public static String explainPaths(String message, Path file, Map<String, String> overrides) {
    List<PathKeys.Resolution> resolutions;
    try {
      resolutions = PathKeys.resolve(merged(file, overrides), overrides.keySet(), folder(file));
    } catch (RuntimeException e) {
      return message; // the file cannot be read again: the message is what there is to say
    }
    String explained = message;
    for (PathKeys.Resolution r : resolutions) {
      if (!explained.contains(r.resolved())) {
        continue;
      }
      String how = r.byDefault()
          ? r.key() + " not set in " + file + ": its default " + r.written()
              + ", relative to the file's folder " + r.folder()
          : r.key() + "=" + r.written() + " in " + file + ", relative to its folder " + r.folder();
      String bare = "(" + r.key() + ")";
      explained = explained.contains(bare) ? explained.replace(bare, "(" + how + ")")
          : explained + " (" + how + ")";
    }
    return explained;
  }

  /**
   * Refuses a job whose file checkpoints are where an older Millrace kept them: it read a
   * relative {@code job.state.dir} (or {@code task.checkpoint.dir}, or the default
   * {@code state/<job.name>}) against the current directory, and now reads it against the job
   * file's folder. Where the folder it reads now holds no checkpoint and the one it read before
   * does, the job would silently start again from its inputs' {@code offset.default}.
   *
   * @throws ConfigException naming both folders, how to move the state, or which key to set
   */
  public static void refuseMovedCheckpoints(Path file, Map<String, String> overrides) {
    movedCheckpoints(file, overrides, Path.of("").toAbsolutePath()).ifPresent(message -> {
      throw new ConfigException(message);
    });
  }

  /**
   * What {@link #refuseMovedCheckpoints} refuses with, or empty where the job's checkpoints are
   * not left behind in {@code currentDir}'s reading of the file.
   */
  public static Optional<String> movedCheckpoints(Path file, Map<String, String> overrides,
      Path currentDir) {
    Map<String, String> merged = merged(file, overrides);
    if (!merged.getOrDefault(CoreKeys.CHECKPOINT_SYSTEM, "file").trim().equals("file")) {
      return Optional.empty(); // kept by a system (Kafka): no folder moved
    }
    String key = isBlank(merged.get(CoreKeys.CHECKPOINT_DIR)) ? CoreKeys.STATE_DIR
        : CoreKeys.CHECKPOINT_DIR;
    Map<String, String> now = new TreeMap<>(merged);
    Map<String, String> before = new TreeMap<>(merged);
    PathKeys.resolve(now, overrides.keySet(), folder(file));
    PathKeys.resolve(before, overrides.keySet(), currentDir);
    if (isBlank(now.get(key)) || isBlank(before.get(key))) {
      return Optional.empty(); // no job.name: the job's own check says so
    }
    Path nowDir = currentDir.resolve(now.get(key)).normalize();
    Path beforeDir = currentDir.resolve(before.get(key)).normalize();
    String sub = key.equals(CoreKeys.STATE_DIR) ? "checkpoints" : "";
    if (nowDir.equals(beforeDir) || hasCheckpoint(nowDir.resolve(sub))
        || !hasCheckpoint(beforeDir.resolve(sub))) {
      return Optional.empty();
    }
    String written = isBlank(merged.get(key)) ? "its default state/" + merged.get(
        CoreKeys.JOB_NAME).trim() : key + "=" + merged.get(key);
    return Optional.of("job " + merged.get(CoreKeys.JOB_NAME).trim() + " has no checkpoint in "
        + nowDir.resolve(sub) + ", but " + beforeDir.resolve(sub) + " holds its checkpoints: "
        + "Millrace reads a relative path in a job file against the file's folder ("
        + folder(file) + "), where it read " + written + " against the current directory "
        + "before. Started so, the job would read its inputs again from their offset.default. "
        + "Move " + beforeDir + " to " + nowDir + ", or set " + key + "=" + beforeDir + " in "
        + file);
  }

  private static boolean hasCheckpoint(Path dir) {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "container-*.checkpoint")) {
      return files.iterator().hasNext();
    } catch (IOException | RuntimeException e) {
      return false; // no such folder, or not one
    }
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
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
