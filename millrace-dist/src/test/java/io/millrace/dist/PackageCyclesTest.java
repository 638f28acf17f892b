package io.millrace.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No package of any module's main code depends on a package that depends back on it, however
 * long the way round: the layers stay layers. Checkstyle's import control says which module may
 * see which; this finds the cycles it cannot (inside a module, and through fully qualified names).
 */
class PackageCyclesTest {
  /** An import, or a fully qualified use, of a Millrace class: its package. */
  private static final Pattern REFERENCE =
      Pattern.compile("(?<![\\w.])(io\\.millrace(?:\\.[a-z][a-z0-9]*)+)\\.[A-Z]");
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");

  @Test
  void noPackageOfTheMainCodeReachesItselfThroughItsImports() {
    Map<String, Set<String>> uses = packageGraph(RepositoryLauncherTest.ROOT);
    assertThat(uses).as("packages found").containsKey("io.millrace.core.loop");

    List<String> cycles = new ArrayList<>();
    for (String start : uses.keySet()) {
      List<String> path = cycleFrom(start, uses);
      if (path != null) {
        cycles.add(String.join(" -> ", path));
      }
    }
    assertThat(cycles).as("package cycles (each from one of its packages)").isEmpty();
  }

  /** Each main-code package and the Millrace packages its classes refer to. */
  static Map<String, Set<String>> packageGraph(Path root) {
    Map<String, Set<String>> uses = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      files.filter(f -> f.toString().endsWith(".java"))
          .filter(f -> f.toString().contains("/src/main/java/"))
          .filter(f -> !f.toString().contains("/target/"))
          .forEach(f -> read(f, uses));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return uses;
  }

  private static void read(Path file, Map<String, Set<String>> uses) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Matcher p = PACKAGE.matcher(text);
    if (!p.find()) {
      return;
    }
    String own = p.group(1);
    Set<String> used = uses.computeIfAbsent(own, k -> new TreeSet<>());
    // Comments and string literals name classes without using them (a factory named by its
    // class name, a {@link} in Javadoc).
    String code = text.replaceAll("(?s)/\\*.*?\\*/|//[^\\n]*|\"(?:\\\\.|[^\"\\\\\\n])*\"", "");
    Matcher m = REFERENCE.matcher(code);
    while (m.find()) {
      if (!m.group(1).equals(own)) {
        used.add(m.group(1));
      }
    }
  }

  /** A path from {@code start} back to itself, or null (depth first, each package once). */
  private static List<String> cycleFrom(String start, Map<String, Set<String>> uses) {
    List<String> path = new ArrayList<>(List.of(start));
    return search(start, start, uses, path, new TreeSet<>()) ? path : null;
  }

  private static boolean search(String start, String at, Map<String, Set<String>> uses,
      List<String> path, Set<String> seen) {
    for (String next : uses.getOrDefault(at, Set.of())) {
      if (next.equals(start)) {
        path.add(next);
        return true;
      }
      if (seen.add(next)) {
        path.add(next);
        if (search(start, next, uses, path, seen)) {
          return true;
        }
        path.remove(path.size() - 1);
      }
    }
    return false;
  }
}
