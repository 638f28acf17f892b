package io.millrace.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code bin/millrace} as a new user meets it: its build installs what it builds
 * (so a project from {@code millrace new} finds Millrace's artifacts), and says what it is doing
 * while Maven works, briefly when there is little to do. Maven's output is recorded text here,
 * and {@code mvn} a stand-in: the real build is what the README's first command runs in CI.
 */
class RepositoryLauncherTest {
  /** The repository's root: Maven runs the tests in the module's folder and names it basedir. */
  static final Path ROOT = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
  @TempDir Path tmp;

  /** Maven's batch output of a build with an empty local repository, shortened. */
  static final String COLD = """
      \u001b[0m\u001b[0m[INFO] Scanning for projects...
      [INFO] Reactor Build Order:
      [INFO] ------------------< io.millrace:millrace-parent >-------------------
      [INFO] Building Millrace 0.1.0-SNAPSHOT                                  [1/3]
      [INFO] Downloading from central: https://repo.maven.apache.org/maven2/org/apache/maven/plugins/maven-resources-plugin/3.3.1/maven-resources-plugin-3.3.1.pom
      [INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/apache/maven/plugins/maven-resources-plugin/3.3.1/maven-resources-plugin-3.3.1.pom (8.1 kB at 67 kB/s)
      [INFO] Downloading from central: https://repo.maven.apache.org/maven2/org/rocksdb/rocksdbjni/8.11.4/rocksdbjni-8.11.4.jar
      [INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/rocksdb/rocksdbjni/8.11.4/rocksdbjni-8.11.4.jar (62 MB at 9.1 MB/s)
      [INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/apache/apache/13/apache-13.pom (456 B at 1.9 kB/s)
      [INFO] ----------------------< io.millrace:millrace-api >----------------------
      [INFO] Building Millrace API 0.1.0-SNAPSHOT                              [2/3]
      [INFO] --- maven-compiler-plugin:3.13.0:compile (default-compile) @ millrace-api ---
      [INFO] Compiling 61 source files with javac [debug release 17] to target/classes
      [INFO] ---------------------< io.millrace:millrace-core >----------------------
      [\u001b[1;34mINFO\u001b[m] \u001b[1mBuilding Millrace core 0.1.0-SNAPSHOT                             [3/3]\u001b[m
      [INFO] --- compiler:3.13.0:compile (default-compile) @ millrace-core ---
      [INFO] --- maven-install-plugin:3.1.3:install (default-install) @ millrace-core ---
      [INFO] BUILD SUCCESS
      [INFO] Total time:  07:52 min
      """;

  private record Run(int exit, String output) {}

  private Run run(Path dir, List<String> command, String input, String path) throws Exception {
    Path out = tmp.resolve("out-" + System.nanoTime() + ".txt");
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(out.toFile());
    if (path != null) {
      builder.environment().put("PATH", path);
    }
    Process process = builder.start();
    process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s ended", command).isTrue();
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }

  /** The script on Maven's recorded output ({@code cat} stands in for mvn): a build that works. */
  private Run progress(String maven, String... options) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(options));
    command.addAll(List.of("--", "cat"));
    return progress(maven, command);
  }

  /** The script with {@code arguments} after its log file: options, --, the command and its own. */
  private Run progress(String input, List<String> arguments) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("bash",
        ROOT.resolve("bin/lib/maven-progress").toString(), tmp.resolve("build.log").toString()));
    command.addAll(arguments);
    return run(tmp, command, input, null);
  }

  @Test
  void aFirstBuildSaysWhichModuleItBuildsWhatItDoesAndHowMuchItDownloaded() throws Exception {
    Run run = progress(COLD);

    assertThat(run.exit()).isZero();
    assertThat(run.output().lines().toList()).containsExactly(
        "millrace: building [1/3] Millrace",
        "millrace: downloading Maven plug-ins and dependencies (once: later builds use the local "
            + "Maven repository)",
        "millrace: building [2/3] Millrace API",
        "millrace: building [3/3] Millrace core",
        "millrace: built in 07:52 min (downloaded 3 files, 62.0 MB); log: "
            + tmp.resolve("build.log"));
    assertThat(Files.readString(tmp.resolve("build.log")))
        .as("Maven's whole output, colour codes taken out (and nothing else)")
        .startsWith("[INFO] Scanning for projects...").contains("Compiling 61 source files")
        .contains("\n[INFO] Building Millrace core 0.1.0-SNAPSHOT ")
        .doesNotContain("\u001b");
  }

  @Test
  void aWarmBuildSaysOnlyWhichModulesItBuilt() throws Exception {
    String warm = COLD.lines().filter(l -> !l.contains("Download")).map(l -> l + "\n")
        .reduce("", String::concat).replace("07:52 min", "9.078 s");

    Run run = progress(warm);

    assertThat(run.output().lines().toList()).containsExactly(
        "millrace: building [1/3] Millrace",
        "millrace: building [2/3] Millrace API",
        "millrace: building [3/3] Millrace core",
        "millrace: built in 9.078 s; log: " + tmp.resolve("build.log"));
  }

  @Test
  void aFailedBuildShowsItsErrorsWithoutMavensAdviceAndWhereItsLogIs() throws Exception {
    String failed = """
        [INFO] Building Millrace core 0.1.0-SNAPSHOT                             [3/3]
        [INFO] --- maven-compiler-plugin:3.13.0:compile (default-compile) @ millrace-core ---
        [ERROR] COMPILATION ERROR :
        \u001b[1;31m[ERROR] /src/Main.java:[12,5] cannot find symbol\u001b[m
        [INFO] \u001b[1;31mBUILD FAILURE\u001b[m
        [INFO] Total time:  3.001 s
        [ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile
        [ERROR] -> [Help 1]
        [ERROR]
        [ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.
        [ERROR] Re-run Maven using the -X switch to enable full debug logging.
        [ERROR] For more information about the errors and possible solutions, please read the following articles:
        [ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException
        """;

    Run run = progress(failed, List.of("--", "bash", "-c", "cat; exit 1"));

    assertThat(run.exit()).as("Maven's status").isOne();
    assertThat(Files.readString(tmp.resolve("build.log"))).contains("\n[INFO] BUILD FAILURE\n");
    assertThat(run.output().lines().toList()).containsExactly(
        "millrace: building [3/3] Millrace core",
        "[ERROR] COMPILATION ERROR :",
        "[ERROR] /src/Main.java:[12,5] cannot find symbol",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile",
        "millrace: the build failed after 3.001 s (bash exited with status 1); its whole log: "
            + tmp.resolve("build.log"));
  }

  @Test
  void aBuildThatFailsWithoutErrorLinesShowsTheLogsLastLinesAndMavensStatus() throws Exception {
    Run run = progress("", List.of("--", "no-such-mvn", "-B", "install"));

    assertThat(run.exit()).as("the shell's status for a command it cannot find").isEqualTo(127);
    assertThat(run.output().lines().toList()).hasSize(2).last().isEqualTo(
        "millrace: the build failed (no-such-mvn exited with status 127); its whole log: "
            + tmp.resolve("build.log"));
    assertThat(run.output()).as("the log's last lines").contains("no-such-mvn: command not found")
        .doesNotContain("millrace: built");
  }

  @Test
  void aBuildIsBuiltOnlyIfMavenExitedZeroWhateverItsErrorLines() throws Exception {
    String warned = COLD.replace("[INFO] BUILD SUCCESS", "[ERROR] a plug-in's complaint\n"
        + "[INFO] BUILD SUCCESS");

    Run run = progress(warned);

    assertThat(run.exit()).isZero();
    assertThat(run.output()).contains("millrace: built in 07:52 min")
        .doesNotContain("a plug-in's complaint");
  }

  @Test
  void onATerminalItRedrawsOneLineWithTheModuleAndWhatItDoes() throws Exception {
    Run run = progress(COLD, "--terminal");

    assertThat(run.output().indexOf('\n')).as("one line, ended at the end")
        .isEqualTo(run.output().length() - 1);
    assertThat(run.output()).contains("\r\u001b[Kmillrace: building [1/3] Millrace (downloaded 1 "
            + "file, 0.0 MB)")
        .contains("\r\u001b[Kmillrace: building [3/3] Millrace core: compiling (downloaded 3 "
            + "files, 62.0 MB)")
        .endsWith("\r\u001b[Kmillrace: built in 07:52 min (downloaded 3 files, 62.0 MB); log: "
            + tmp.resolve("build.log") + "\n");
  }

  /**
   * The launcher in a copy of the repository that has not been built, with a stand-in for mvn
   * that records how it was called: the build installs, skips the tests, and its progress shows.
   */
  @Test
  void theLaunchersBuildInstallsWhatItBuildsAndShowsItsProgress() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("clone"));
    Files.createDirectories(root.resolve("bin/lib"));
    for (String script : List.of("bin/millrace", "bin/lib/maven-progress")) {
      Files.copy(ROOT.resolve(script), root.resolve(script));
    }
    Files.writeString(root.resolve("pom.xml"), "<project/>");
    Path fakeBin = Files.createDirectories(tmp.resolve("fake-bin"));
    Path mvn = fakeBin.resolve("mvn");
    Files.writeString(mvn, "#!/usr/bin/env bash\n"
        + "echo \"$PWD $*\" > \"" + tmp.resolve("mvn-called-with") + "\"\n"
        + "cat <<'LOG'\n" + COLD + "LOG\n");
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));

    Run run = run(tmp, List.of("bash", root.resolve("bin/millrace").toString(), "--help"), "",
        fakeBin + ":" + System.getenv("PATH"));

    assertThat(Files.readString(tmp.resolve("mvn-called-with")).trim().split(" "))
        .startsWith(root.toString()).contains("install", "-DskipTests").doesNotContain("-q",
            "package");
    assertThat(run.output()).contains("millrace: building [2/3] Millrace API")
        .contains("millrace: built in 07:52 min");
    assertThat(run.exit()).as("the stand-in built no distribution: %s", run.output()).isOne();
    assertThat(run.output()).contains("millrace: no distribution in " + root
        + "/millrace-dist/target/dist");
  }

  /**
   * A built clone in a folder named src (~/src/millrace, say) does not rebuild because files
   * under it that are no sources (a build log, a job's output) are newer than the build.
   */
  @Test
  void aBuiltCloneBelowAFolderNamedSrcIsNotRebuiltForItsLogsAndOutputs() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("src/millrace"));
    Files.createDirectories(root.resolve("bin/lib"));
    for (String script : List.of("bin/millrace", "bin/lib/maven-progress")) {
      Files.copy(ROOT.resolve(script), root.resolve(script));
    }
    Path source = root.resolve("millrace-core/src/main/java/Task.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, "class Task {}");
    Files.writeString(root.resolve("pom.xml"), "<project/>");
    java.nio.file.attribute.FileTime built = java.nio.file.attribute.FileTime.from(
        java.time.Instant.now().minusSeconds(60));
    Path bench = root.resolve("millrace-bench/target/millrace-bench.jar");
    Files.createDirectories(bench.getParent());
    Files.writeString(bench, "a jar");
    Files.setLastModifiedTime(bench, built);
    try (var sources = Files.walk(root.resolve("millrace-core"))) { // its folders too
      for (Path older : java.util.stream.Stream.concat(sources, java.util.stream.Stream.of(
          root.resolve("pom.xml"))).toList()) {
        Files.setLastModifiedTime(older, java.nio.file.attribute.FileTime.from(
            built.toInstant().minusSeconds(60)));
      }
    }
    Files.createDirectories(root.resolve("target"));
    Files.writeString(root.resolve("target/millrace-build.log"), "newer than the build");
    Files.createDirectories(root.resolve("millrace-output/wordcount"));
    Files.writeString(root.resolve("millrace-output/wordcount/part-00000"), "the\t9");
    Path fakeBin = Files.createDirectories(tmp.resolve("fake-bin"));
    Path mvn = fakeBin.resolve("mvn");
    Files.writeString(mvn, "#!/usr/bin/env bash\ntouch \"" + tmp.resolve("mvn-called") + "\"\n");
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));

    Run run = run(tmp, List.of("bash", root.resolve("bin/millrace").toString(), "--help"), "",
        fakeBin + ":" + System.getenv("PATH"));

    assertThat(tmp.resolve("mvn-called")).as("no build: %s", run.output()).doesNotExist();
    assertThat(run.output()).doesNotContain("building");

    Files.setLastModifiedTime(source, java.nio.file.attribute.FileTime.from(
        java.time.Instant.now()));
    run(tmp, List.of("bash", root.resolve("bin/millrace").toString(), "--help"), "",
        fakeBin + ":" + System.getenv("PATH"));
    assertThat(tmp.resolve("mvn-called")).as("a source changed: built").exists();
  }

  /** The README's job file is the word count example's, shortened: the same lines, its paths. */
  @Test
  void theReadmesJobFileIsTheWordCountExamplesOwnLines() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int at = readme.indexOf("```properties\n# millrace-examples/jobs/wordcount.properties");
    assertThat(at).as("the README shows the word count's job file").isNotNegative();
    List<String> shown = readme.substring(at, readme.indexOf("\n```\n", at)).lines()
        .skip(2).toList();
    List<String> example = Files.readAllLines(
        ROOT.resolve("millrace-examples/jobs/wordcount.properties"));

    assertThat(shown).isNotEmpty().allSatisfy(line -> assertThat(example).contains(line));
  }

  @Test
  void theReadmeSaysTheFirstCommandInstalls() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    assertThat(readme).contains("`mvn -B -DskipTests install`")
        .doesNotContain("mvn -q -B -DskipTests package");
  }
}
