package io.millrace.core.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where Maven keeps its local repository, found as Maven finds it in the usual set-ups
 * ({@code -Dmaven.repo.local} in {@code MAVEN_OPTS}, {@code <localRepository>} in
 * {@code ~/.m2/settings.xml}, else {@code ~/.m2/repository}), and whether it holds Millrace's
 * artifacts: a project from {@code millrace new} builds against them.
 */
final class LocalMavenRepository {
  private static final Pattern OPTION = Pattern.compile("-Dmaven\\.repo\\.local=(\\S+)");
  private static final Pattern SETTING =
      Pattern.compile("<localRepository>\\s*([^<]+?)\\s*</localRepository>");
  /** An XML comment: Maven's stock settings.xml holds a commented-out localRepository. */
  private static final Pattern COMMENT = Pattern.compile("(?s)<!--.*?-->");

  private LocalMavenRepository() {}

  /**
   * The local repository's folder.
   *
   * @param env the environment (its {@code MAVEN_OPTS})
   * @param home the user's home folder
   */
  static Path find(Map<String, String> env, Path home) {
    Matcher option = OPTION.matcher(env.getOrDefault("MAVEN_OPTS", ""));
    if (option.find()) {
      return Path.of(option.group(1));
    }
    Path settings = home.resolve(".m2/settings.xml");
    if (Files.isRegularFile(settings)) {
      try {
        Matcher setting = SETTING.matcher(COMMENT.matcher(Files.readString(settings))
            .replaceAll(""));
        if (setting.find()) {
          return Path.of(setting.group(1).replace("${user.home}", home.toString()));
        }
      } catch (IOException e) {
        // Unreadable settings: Maven would say so itself; the default is as good a guess.
      }
    }
    return home.resolve(".m2/repository");
  }

  /** The artifacts of {@code io.millrace} among {@code artifactIds} that {@code repository} lacks. */
  static List<String> missing(Path repository, String version, List<String> artifactIds) {
    return artifactIds.stream().filter(id -> !Files.isRegularFile(repository.resolve(
        Path.of("io", "millrace", id, version, id + "-" + version + ".pom")))).toList();
  }
}
