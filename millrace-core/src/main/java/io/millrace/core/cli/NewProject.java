package io.millrace.core.cli;

import io.millrace.api.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import javax.lang.model.SourceVersion;

/**
 * {@code millrace new <dir> [--package <name>] [--kafka]}: writes a Maven project with a task, its
 * job's properties, a test on the test driver, a README and a build that makes one runnable jar.
 * The files come from templates beside this class ({@code new-project/}); the versions it depends
 * on are this build's ({@code build.properties}, filled in by Maven).
 */
final class NewProject {
  static final String USAGE = "usage: millrace new <dir> [--package <java.package>] [--kafka]";

  private NewProject() {}

  /** Parses the arguments after {@code new}, writes the project, and says what to do next. */
  static int run(String[] args, java.io.PrintStream out) {
    return run(args, out, LocalMavenRepository.find(System.getenv(),
        Path.of(System.getProperty("user.home"))));
  }

  /**
   * As {@link #run(String[], java.io.PrintStream)}, saying what to install first if
   * {@code repository} (the local Maven repository) lacks the artifacts the project needs.
   */
  static int run(String[] args, java.io.PrintStream out, Path repository) {
    String dir = null;
    String pkg = null;
    boolean kafka = false;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--package") && i + 1 < args.length) {
        pkg = args[++i];
      } else if (args[i].startsWith("--package=")) {
        pkg = args[i].substring("--package=".length());
      } else if (args[i].equals("--kafka")) {
        kafka = true;
      } else if (dir == null && !args[i].startsWith("--")) {
        dir = args[i];
      } else {
        throw new ConfigException("unexpected argument '" + args[i] + "'\n" + USAGE);
      }
    }
    if (dir == null) {
      throw new ConfigException("no directory given\n" + USAGE);
    }
    Path target = Path.of(dir).toAbsolutePath().normalize();
    String artifactId = artifactId(target);
    if (pkg == null) {
      String candidate = "com.example." + artifactId.replace("-", "");
      pkg = SourceVersion.isName(candidate) ? candidate : "com.example.job"; // a keyword: "new"
    }
    checkPackage(pkg);
    String version = write(target, artifactId, pkg, kafka);
    out.println("wrote " + target + " (package " + pkg + (kafka ? ", on Kafka" : "") + "); now:");
    out.println("  cd " + dir + " && mvn package && java -jar target/" + artifactId + ".jar "
        + "job.properties");
    List<String> missing = LocalMavenRepository.missing(repository, version, kafka
        ? List.of("millrace-core", "millrace-test", "millrace-kafka")
        : List.of("millrace-core", "millrace-test"));
    if (!missing.isEmpty()) {
      out.println("note: it builds against io.millrace:" + String.join(", ", missing) + ":"
          + version + ", not in the local Maven repository (" + repository + "): first run "
          + "mvn install -DskipTests in Millrace's repository (its bin/millrace does that when "
          + "it builds)");
    }
    return 0;
  }

  /** The project's artifact id: the directory's name, lower case, letters digits and dashes. */
  static String artifactId(Path dir) {
    String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
    String id = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-")
        .replaceAll("^-+|-+$", "");
    if (id.isEmpty() || !Character.isLetter(id.charAt(0))) {
      throw new ConfigException("directory name '" + name + "' cannot name a project: it must "
          + "start with a letter (e.g. millrace new my-job)");
    }
    return id;
  }

  static void checkPackage(String pkg) {
    for (String part : pkg.split("\\.", -1)) {
      if (!SourceVersion.isName(part)) {
        throw new ConfigException("--package " + pkg + " is not a Java package name ('" + part
            + "' is not an identifier, or is a keyword)");
      }
    }
  }

  /** Writes the project's files; returns the Millrace version it depends on. */
  private static String write(Path target, String artifactId, String pkg, boolean kafka) {
    try {
      if (Files.exists(target) && (!Files.isDirectory(target) || hasFiles(target))) {
        throw new ConfigException("cannot write a project into " + target + ": it exists and is "
            + "not an empty directory");
      }
      Properties build = new Properties();
      try (InputStream in = resource("build.properties")) {
        build.load(in);
      }
      String packagePath = pkg.replace('.', '/');
      Map<String, String> values = new LinkedHashMap<>();
      values.put("groupId", pkg);
      values.put("artifactId", artifactId);
      values.put("package", pkg);
      values.put("packagePath", packagePath);
      values.put("input", "views");
      values.put("millraceVersion", build.getProperty("millrace.version"));
      values.put("junitVersion", build.getProperty("junit.version"));
      values.put("assertjVersion", build.getProperty("assertj.version"));
      values.put("slf4jVersion", build.getProperty("slf4j.version"));
      for (String plugin : List.of("compiler", "surefire", "jar", "resources", "install",
          "assembly")) {
        values.put(plugin + "PluginVersion", build.getProperty(plugin + ".plugin.version"));
      }
      values.put("kafkaDependency", kafka ? "\n    <dependency><groupId>io.millrace</groupId>"
          + "<artifactId>millrace-kafka</artifactId><version>${millrace.version}</version>"
          + "</dependency>" : "");
      values.put("runNotes", kafka
          ? "The job reads and writes Kafka at `127.0.0.1:9092` (`systems.kafka.bootstrap.servers`"
              + " in `job.properties`); start the same jar on several machines to share the "
              + "work.\nIts test needs no broker."
          : "It reads `data/page-views.csv` and writes `output/counts/part-00000`.");

      Files.createDirectories(target);
      Map<String, String> files = new LinkedHashMap<>();
      files.put("pom.xml", "pom.xml.tmpl");
      files.put("README.md", "README.md.tmpl");
      files.put(".gitignore", "gitignore.tmpl");
      files.put("job.properties", kafka ? "job-kafka.properties.tmpl"
          : "job-embedded.properties.tmpl");
      files.put("src/assembly/runnable.xml", "runnable.xml.tmpl");
      files.put("src/main/java/" + packagePath + "/CountTask.java", "CountTask.java.tmpl");
      files.put("src/main/java/" + packagePath + "/Main.java", "Main.java.tmpl");
      files.put("src/test/java/" + packagePath + "/CountTaskTest.java", "CountTaskTest.java.tmpl");
      if (!kafka) {
        files.put("data/page-views.csv", "page-views.csv.tmpl");
      }
      for (Map.Entry<String, String> file : files.entrySet()) {
        Path path = target.resolve(file.getKey());
        Files.createDirectories(path.getParent());
        Files.writeString(path, fill(template(file.getValue()), values), StandardCharsets.UTF_8);
      }
      return values.get("millraceVersion");
    } catch (IOException e) {
      throw new ConfigException("cannot write the project into " + target + ": " + e);
    }
  }

  private static boolean hasFiles(Path dir) throws IOException {
    try (var entries = Files.list(dir)) {
      return entries.findAny().isPresent();
    }
  }

  private static String template(String name) throws IOException {
    try (InputStream in = resource("new-project/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static InputStream resource(String name) throws IOException {
    InputStream in = NewProject.class.getResourceAsStream(name);
    if (in == null) {
      throw new IOException("resource " + name + " is missing from the Millrace jar");
    }
    return in;
  }

  /** Replaces each {@code {{name}}}; a name without a value is a bug in the templates. */
  static String fill(String template, Map<String, String> values) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int open = template.indexOf("{{", at);
      if (open < 0) {
        return out.append(template, at, template.length()).toString();
      }
      int close = template.indexOf("}}", open);
      String name = template.substring(open + 2, close);
      String value = values.get(name);
      if (value == null) {
        throw new IllegalStateException("template placeholder {{" + name + "}} has no value");
      }
      out.append(template, at, open).append(value);
      at = close + 2;
    }
  }
}
