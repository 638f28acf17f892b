package io.millrace.core.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys of a job file whose values are paths, and how a relative one is read: against the
 * folder of the file that holds it (as Docker Compose, Cargo or a Kafka Streams application's own
 * config loader do), so that a job runs the same from any directory. The paths of a job file are
 * {@code job.state.dir}, {@code task.checkpoint.dir}, the physical name of a stream on a
 * {@code file} system, and a system's {@code *.location} keys (Kafka's key and trust stores); the
 * defaults that are paths ({@code job.state.dir}'s {@code state/<job.name>}, a file stream's
 * {@code <id>}) are relative to the folder too.
 */
final class PathKeys {
  private static final String FILE_FACTORY = "io.millrace.core.system.file.FileSystemFactory";

  private PathKeys() {}

  /**
   * How one path of a job file was read.
   *
   * @param key its key
   * @param written its value as the file wrote it, or its default where the file has none
   * @param byDefault whether the file left it to its default
   * @param folder the folder it was made absolute against
   * @param resolved the path it became
   */
  record Resolution(String key, String written, boolean byDefault, Path folder, String resolved) {}

  /**
   * Makes the relative paths of {@code values} absolute against {@code folder}, except those of
   * {@code fromCommandLine} (relative to the current directory, as any command-line argument), and
   * writes the path defaults out against it.
   *
   * @return each path it made absolute or wrote out, with its value as written
   */
  static List<Resolution> resolve(Map<String, String> values, Set<String> fromCommandLine,
      Path folder) {
    List<Resolution> resolutions = new ArrayList<>();
    for (String key : pathKeys(values)) {
      String value = values.get(key);
      if (value != null && !value.isEmpty() && !fromCommandLine.contains(key)) {
        String resolved = against(folder, value);
        values.put(key, resolved);
        if (!resolved.equals(value)) {
          resolutions.add(new Resolution(key, value, false, folder, resolved));
        }
      }
    }
    String job = values.get(CoreKeys.JOB_NAME);
    if (isBlank(values.get(CoreKeys.STATE_DIR)) && !isBlank(job)) {
      String written = "state/" + job.trim();
      String resolved = against(folder, written);
      values.put(CoreKeys.STATE_DIR, resolved);
      resolutions.add(new Resolution(CoreKeys.STATE_DIR, written, true, folder, resolved));
    }
    for (String id : fileStreams(values)) {
      String key = "streams." + id + "." + CoreKeys.S_PHYSICAL_NAME;
      if (isBlank(values.get(key))) {
        String resolved = against(folder, id);
        values.put(key, resolved);
        resolutions.add(new Resolution(key, id, true, folder, resolved));
      }
    }
    return resolutions;
  }

  /** The keys present whose values are paths. */
  static List<String> pathKeys(Map<String, String> values) {
    List<String> keys = new ArrayList<>(List.of(CoreKeys.STATE_DIR, CoreKeys.CHECKPOINT_DIR));
    for (String id : fileStreams(values)) {
      keys.add("streams." + id + "." + CoreKeys.S_PHYSICAL_NAME);
    }
    for (String key : values.keySet()) {
      if (key.startsWith("systems.") && key.endsWith(".location")) {
        keys.add(key);
      }
    }
    return keys;
  }

  /** The ids of the streams on a file system (built in, or named by its factory). */
  private static List<String> fileStreams(Map<String, String> values) {
    List<String> ids = new ArrayList<>();
    String suffix = "." + CoreKeys.S_SYSTEM;
    for (Map.Entry<String, String> e : values.entrySet()) {
      String key = e.getKey();
      if (!key.startsWith("streams.") || !key.endsWith(suffix)) {
        continue;
      }
      String id = key.substring("streams.".length(), Math.max("streams.".length(),
          key.length() - suffix.length()));
      String system = e.getValue().trim();
      String factory = values.getOrDefault("systems." + system + ".factory", system).trim();
      if (!id.isEmpty() && id.indexOf('.') < 0
          && (factory.equals("file") || factory.equals(FILE_FACTORY))) {
        ids.add(id);
      }
    }
    return ids;
  }

  private static String against(Path folder, String value) {
    try {
      Path path = Path.of(value);
      return path.isAbsolute() ? value : folder.resolve(path).normalize().toString();
    } catch (InvalidPathException e) {
      return value; // not a path this machine can have: the system says so when it opens it
    }
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
