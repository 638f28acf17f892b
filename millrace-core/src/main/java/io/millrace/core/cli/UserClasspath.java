package io.millrace.core.cli;

import io.millrace.api.config.ConfigException;
import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --classpath} of {@code millrace run}: jars and class directories, separated by
 * {@code :} ({@code ;} on Windows) as for {@code java -cp}, where {@code dir/*} means every jar in
 * {@code dir}. Each entry must exist: a typo would otherwise surface later as a task class "not
 * on the classpath", far from its cause.
 */
final class UserClasspath {
  private UserClasspath() {}

  /** A loader over the entries of every {@code --classpath} value, child of {@code parent}. */
  static URLClassLoader loader(List<String> values, ClassLoader parent) {
    List<URL> urls = new ArrayList<>();
    for (String value : values) {
      for (String entry : value.split(File.pathSeparator)) {
        if (!entry.isEmpty()) {
          for (Path path : expand(entry)) {
            urls.add(url(path));
          }
        }
      }
    }
    return new URLClassLoader("millrace-user-classpath", urls.toArray(URL[]::new), parent);
  }

  private static List<Path> expand(String entry) {
    if (entry.equals("*") || entry.endsWith("/*") || entry.endsWith(File.separator + "*")) {
      Path dir = Path.of(entry.substring(0, entry.length() - 1)).toAbsolutePath();
      if (!Files.isDirectory(dir)) {
        throw new ConfigException("--classpath entry '" + entry + "': no such directory " + dir);
      }
      List<Path> jars = new ArrayList<>();
      try (DirectoryStream<Path> found = Files.newDirectoryStream(dir, "*.{jar,JAR}")) {
        found.forEach(jars::add);
      } catch (IOException e) {
        throw new ConfigException("--classpath entry '" + entry + "': cannot list " + dir + ": "
            + e.getMessage());
      }
      jars.sort(null);
      return jars;
    }
    Path path = Path.of(entry).toAbsolutePath();
    if (!Files.exists(path)) {
      throw new ConfigException("--classpath entry '" + entry + "' does not exist (" + path + ")");
    }
    if (!Files.isDirectory(path) && !entry.toLowerCase(java.util.Locale.ROOT).endsWith(".jar")) {
      throw new ConfigException("--classpath entry '" + entry + "' is neither a directory nor a "
          + ".jar file");
    }
    return List.of(path);
  }

  private static URL url(Path path) {
    try {
      return path.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new ConfigException("--classpath entry " + path + " cannot be used: " + e.getMessage());
    }
  }
}
