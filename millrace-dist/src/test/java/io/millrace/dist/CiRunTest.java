package io.millrace.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code .ci/run} in a stand-in clone: which lines of the README it takes for the two commands,
 * where it runs each, and what it builds in between. {@code mvn} and the clone's
 * {@code bin/millrace} are stand-ins that record how they were called; the real commands are what
 * CI runs.
 */
class CiRunTest {
  @TempDir Path tmp;

  private record Run(int exit, String output) {}

  /** A clone holding .ci/run, {@code readme} and a bin/millrace that records its calls. */
  private Path clone(String readme) throws Exception {
    Path root = Files.createDirectories(tmp.resolve("clone"));
    Files.createDirectories(root.resolve(".ci"));
    Files.copy(RepositoryLauncherTest.ROOT.resolve(".ci/run"), root.resolve(".ci/run"));
    Files.writeString(root.resolve("README.md"), readme);
    script(root.resolve("bin/millrace"), "echo \"millrace $* in $PWD\" >> \"$CI_CALLS\"\n"
        + "[ \"$1\" = new ] && mkdir -p \"$2\"\n"
        + "[ \"$1\" = run ] && mkdir -p target\n"
        + "exit 0\n");
    script(tmp.resolve("fake-bin/mvn"), "echo \"mvn $* in $PWD"
        + "$([ -d target ] && echo ' (built)')\" >> \"$CI_CALLS\"\n");
    return root;
  }

  private static void script(Path path, String body) throws Exception {
    Files.createDirectories(path.getParent());
    Files.writeString(path, "#!/usr/bin/env bash\n" + body);
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private Run ci(Path root) throws Exception {
    Path out = tmp.resolve("out.txt");
    Path temp = Files.createDirectories(tmp.resolve("temp"));
    ProcessBuilder builder = new ProcessBuilder("bash", root.resolve(".ci/run").toString())
        .directory(tmp.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
    builder.environment().put("PATH", tmp.resolve("fake-bin") + ":" + System.getenv("PATH"));
    builder.environment().put("CI_CALLS", calls().toString());
    builder.environment().put("TMPDIR", temp.toString());
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }

  private Path calls() {
    return tmp.resolve("calls.txt");
  }

  private List<String> callsMade() throws Exception {
    return Files.exists(calls()) ? Files.readAllLines(calls()) : List.of();
  }

  @Test
  void runsTheReadmesFirstCommandInACopyThenANewProjectOfflineThenTheTestsOnTheCleanClone()
      throws Exception {
    Path root = clone(Files.readString(RepositoryLauncherTest.ROOT.resolve("README.md")));

    Run run = ci(root);

    assertThat(run.exit()).as(run.output()).isZero();
    List<String> calls = callsMade();
    assertThat(calls).hasSize(4);
    assertThat(calls.get(0)).matches("millrace run millrace-examples/jobs/wordcount\\.properties"
        + " in " + tmp.resolve("temp") + "/[^ ]+/first");
    String copy = calls.get(0).substring(calls.get(0).lastIndexOf(" in ") + 4);
    assertThat(calls.get(1)).isEqualTo("millrace new " + Path.of(copy).getParent()
        .resolve("ci-job") + " in " + root);
    assertThat(calls.get(2)).isEqualTo("mvn -B -o -q -Dstyle.color=never package in "
        + Path.of(copy).getParent().resolve("ci-job"));
    assertThat(calls.get(3)).as("the tests on the clone, nothing built in it")
        .isEqualTo("mvn -B install in " + root);
    try (Stream<Path> left = Files.list(tmp.resolve("temp"))) {
      assertThat(left).as("its temporary folder removed").isEmpty();
    }
  }

  @Test
  void blankAndCommentLinesAnyFenceAndAHashInsideACommandAreTakenAsWritten() throws Exception {
    Path root = clone("""
        # A project

        ## Two commands

        ```bash
        # the first:
        echo "first # not a comment" > "$CI_CALLS.first"   # a comment

        echo tests > "$CI_CALLS.tests"
        ```

        ## Testing a task
        ```sh
        echo not a command
        ```
        """);

    Run run = ci(root);

    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(Files.readString(Path.of(calls() + ".first"))).isEqualTo("first # not a comment\n");
    assertThat(Files.readString(Path.of(calls() + ".tests"))).isEqualTo("tests\n");
    assertThat(run.output()).doesNotContain("not a command");
  }

  @Test
  void aReadmeWithoutTheSectionOrWithAnotherCountOfCommandsIsNamedAndRunsNothing()
      throws Exception {
    Path root = clone("# A project\n\n## Getting started\n\n```sh\nmvn -B install\n```\n");

    Run run = ci(root);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.output()).contains("README.md should have a section \"## Two commands\"")
        .contains("found 0");
    assertThat(callsMade()).isEmpty();

    Files.writeString(root.resolve("README.md"),
        "## Two commands\n```sh\nbin/millrace run a\nmvn -B install\nmvn -B verify\n```\n");
    run = ci(root);

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.output()).contains("found 3:").contains("  mvn -B verify");
    assertThat(callsMade()).isEmpty();
  }
}
