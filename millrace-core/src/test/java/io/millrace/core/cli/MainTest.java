package io.millrace.core.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.StreamTask;
import io.millrace.core.testing.LineTasks.ExplodingTask;
import io.millrace.core.testing.LineTasks.UpperCaseTask;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
  @TempDir Path tmp;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int main(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private Path job(Class<? extends StreamTask> task, String... extraLines) throws Exception {
    return job(task.getName(), extraLines);
  }

  private Path job(String taskClass, String... extraLines) throws Exception {
    Path input = tmp.resolve("in.txt");
    Files.writeString(input, "one\ntwo\nboom\nthree\n");
    StringBuilder text = new StringBuilder()
        .append("job.name=cli-test\n")
        .append("task.class=").append(taskClass).append('\n')
        .append("task.inputs=lines\n")
        .append("task.outputs=out\n")
        .append("streams.lines.system=file\n")
        .append("streams.lines.physical.name=").append(input).append('\n')
        .append("streams.out.system=file\n")
        .append("streams.out.physical.name=").append(tmp.resolve("out")).append('\n')
        .append("job.state.dir=").append(tmp.resolve("state")).append('\n');
    for (String line : extraLines) {
      text.append(line).append('\n');
    }
    Path file = tmp.resolve("job.properties");
    Files.writeString(file, text);
    return file;
  }

  @Test
  void planOfATaskJobShowsItsStreamsAndStoresAndCreatesNothing() throws Exception {
    Path file = job(UpperCaseTask.class, "stores.seen.factory=memory");
    assertThat(main("plan", file.toString())).isZero();
    assertThat(out()).contains("millrace-plan 1\njob cli-test\ntask " + UpperCaseTask.class
            .getName() + "\ntasks 1\n")
        .contains("input lines system=file physical=" + tmp.resolve("in.txt") + " partitions=1")
        .contains("output out system=file")
        .contains("store seen factory=memory");
    assertThat(tmp.resolve("out")).doesNotExist();
    assertThat(tmp.resolve("state")).doesNotExist();
  }

  @Test
  void planAgainstItsOwnSavedPlanOrphansNothingAndAgainstARenamedStoreExitsFour()
      throws Exception {
    Path file = job(UpperCaseTask.class, "stores.seen.factory=memory");
    Path saved = tmp.resolve("before.plan");
    assertThat(main("plan", "--out", saved.toString(), file.toString())).isZero();
    assertThat(main("plan", file.toString(), "--against", saved.toString())).isZero();
    assertThat(out()).contains("no change");
    Files.writeString(file, Files.readString(file).replace("stores.seen.", "stores.seen2."));
    assertThat(main("plan", "--against", saved.toString(), file.toString()))
        .isEqualTo(PlanCommand.EXIT_ORPHANS);
    assertThat(out()).contains("orphaned: store seen is renamed to seen2, which starts empty")
        .contains("1 change(s) would orphan state");
  }

  @Test
  void planAgainstAFileThatCannotBeParsedNamesTheFileAndLineAndExitsTwo() throws Exception {
    Path file = job(UpperCaseTask.class);
    Path saved = tmp.resolve("broken.plan");
    Files.writeString(saved, "millrace-plan 1\njob cli-test\ntasks many\n");
    assertThat(main("plan", file.toString(), "--against", saved.toString())).isEqualTo(2);
    assertThat(err()).startsWith("error: plan file " + saved + " line 3: tasks must be a whole "
        + "number");
    assertThat(main("plan", file.toString(), "--against")).isEqualTo(2);
    assertThat(err()).contains("--against needs a file");
  }

  @Test
  void configCheckOfAGoodFileExitsZero() throws Exception {
    Path file = job(UpperCaseTask.class);
    assertThat(main("config", "check", file.toString())).isZero();
    assertThat(out()).contains("config OK").contains(file.toString());
    assertThat(err()).isEmpty();
  }

  @Test
  void configCheckOfABadFileExitsTwoWithTheProblemOnStderr() throws Exception {
    Path file = job(UpperCaseTask.class, "task.error.policy=explode");
    assertThat(main("config", "check", file.toString())).isEqualTo(2);
    assertThat(err()).startsWith("error: ")
        .contains("task.error.policy")
        .contains("'explode'")
        .contains(file.toString());
    assertThat(out()).doesNotContain("config OK");
  }

  @Test
  void setOverridesApplyToConfigCheck() throws Exception {
    Path file = job(UpperCaseTask.class);
    assertThat(main("config", "check", file.toString(), "--set", "task.comit.ms=5")).isEqualTo(2);
    assertThat(err()).contains("unknown key task.comit.ms").contains("did you mean task.commit.ms?");
  }

  @Test
  void missingJobFileExitsTwo() {
    Path missing = tmp.resolve("nope.properties");
    assertThat(main("config", "check", missing.toString())).isEqualTo(2);
    assertThat(err()).contains(missing.toString()).contains("does not exist");
  }

  @Test
  void badUsageExitsTwoWithTheUsage() {
    assertThat(main()).isEqualTo(2);
    assertThat(err()).contains("usage: millrace run");
    err.reset();
    assertThat(main("frobnicate", "x")).isEqualTo(2);
    assertThat(err()).contains("usage:");
  }

  @Test
  void runOfASuccessfulJobExitsZeroAndWritesItsOutput() throws Exception {
    Path file = job(UpperCaseTask.class);
    assertThat(main("run", file.toString(), "--set", "streams.out.file.truncate=true")).isZero();
    assertThat(out()).contains("running job cli-test").contains("job cli-test done");
    assertThat(Files.readAllLines(tmp.resolve("out/part-00000")))
        .containsExactly("ONE", "TWO", "BOOM", "THREE");
  }

  @Test
  void runOfAFailingJobExitsOneWithTheFailureOnStderr() throws Exception {
    Path file = job(ExplodingTask.class);
    assertThat(main("run", file.toString())).isEqualTo(1);
    assertThat(err()).contains("job cli-test failed")
        .contains("lines/0 offset 8")
        .contains("exploded");
  }

  @Test
  void aDamagedCheckpointExitsThreeWithOneErrorLineNamingTheFileAndLeavesItAsItIs()
      throws Exception {
    Path file = job(UpperCaseTask.class);
    assertThat(main("run", file.toString(), "--set", "streams.out.file.truncate=true")).isZero();
    Path checkpoint;
    try (var files = Files.walk(tmp.resolve("state"))) {
      checkpoint = files.filter(f -> f.toString().endsWith(".checkpoint")).findFirst()
          .orElseThrow(() -> new AssertionError("the first run wrote no checkpoint"));
    }
    String damaged = Files.readString(checkpoint).replaceFirst("\\d(?=\\D*$)", "x");
    Files.writeString(checkpoint, damaged);
    err.reset();
    out.reset();

    assertThat(main("run", file.toString())).isEqualTo(Main.EXIT_CHECKPOINT).isEqualTo(3);
    assertThat(err().lines().toList()).singleElement().satisfies(line -> assertThat(line)
        .startsWith("error: ").contains(checkpoint.toString()).contains("corrupt"));
    assertThat(out()).doesNotContain("running job");
    assertThat(Files.readString(checkpoint)).isEqualTo(damaged);
  }

  @Test
  void aMetricsPortInUseIsBadConfigurationExitingTwoWithOneErrorLine() throws Exception {
    Path file = job(UpperCaseTask.class);
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      assertThat(main("run", file.toString(), "--set", "metrics.http.host=127.0.0.1",
          "--set", "metrics.http.port=" + taken.getLocalPort())).isEqualTo(2);
      assertThat(err().lines().toList()).singleElement().satisfies(line -> assertThat(line)
          .startsWith("error: cannot serve metrics.http.port=" + taken.getLocalPort())
          .contains("127.0.0.1"));
    }
  }

  @Test
  void helpPrintsEveryCommandOnStdoutAndExitsZero() {
    assertThat(main("--help")).isZero();
    assertThat(out()).contains("millrace run").contains("millrace config check")
        .contains("millrace status").contains("millrace new").contains("millrace bench")
        .contains("millrace kafka-dev").contains("--help");
    assertThat(err()).isEmpty();
    out.reset();
    assertThat(main("-h")).isZero();
    assertThat(out()).contains("millrace kafka-dev");
  }

  @Test
  void aCommandsHelpSaysWhatItTakesAndExitsZero() {
    assertThat(main("run", "--help")).isZero();
    assertThat(out()).startsWith("usage: millrace run").contains("--set key=value")
        .contains("--classpath").contains("relative to the file's folder").contains("130");
    out.reset();
    assertThat(main("config", "check", "-h")).isZero();
    assertThat(out()).startsWith("usage: millrace config check");
    out.reset();
    assertThat(main("status", "--help")).isZero();
    assertThat(out()).startsWith("usage: millrace status").contains("metrics.http.port");
    out.reset();
    assertThat(main("new", "--help")).isZero();
    assertThat(out()).startsWith("usage: millrace new");
    out.reset();
    assertThat(main("help", "run")).isZero();
    assertThat(out()).startsWith("usage: millrace run");
    assertThat(err()).isEmpty();
  }

  @Test
  void anUnknownCommandIsNamedOnAnErrorLineBeforeTheUsage() {
    assertThat(main("frobnicate", "x")).isEqualTo(2);
    assertThat(err().lines().findFirst()).hasValue("error: unknown command 'frobnicate' "
        + "(commands: run, config check, status, plan, new, bench, kafka-dev; millrace --help says "
        + "what each does)");
    assertThat(err()).contains("usage: millrace run");
  }

  @Test
  void aBadSetValueIsBlamedOnTheSetNotOnTheFileAndSaysWhatTheValueMeans() throws Exception {
    Path file = job(UpperCaseTask.class);
    assertThat(main("config", "check", file.toString(), "--set", "task.commit.ms=abc"))
        .isEqualTo(2);
    assertThat(err().lines().toList()).singleElement().isEqualTo("error: bad value 'abc' for "
        + "task.commit.ms from --set task.commit.ms=abc: expected an integer, in milliseconds (0 or "
        + "less: commit only when asked and at stop)");
    err.reset();
    assertThat(main("config", "check", file.toString(), "--set", "task.comit.ms=5"))
        .isEqualTo(2);
    assertThat(err()).contains("unknown key task.comit.ms from --set task.comit.ms=5")
        .contains("did you mean task.commit.ms?").doesNotContain(file.toString());
  }

  @Test
  void aBadValueInTheFileIsStillBlamedOnTheFile() throws Exception {
    Path file = job(UpperCaseTask.class, "task.window.ms=soon");
    assertThat(main("config", "check", file.toString(), "--set", "task.commit.ms=5"))
        .isEqualTo(2);
    assertThat(err()).contains("bad value 'soon' for task.window.ms in " + file)
        .doesNotContain("-9223372036854775808");
  }

  @Test
  void anEmptyKeyAndABadEscapeAreNamedWithTheirLine() throws Exception {
    Path file = job(UpperCaseTask.class, "=oops");
    assertThat(main("config", "check", file.toString())).isEqualTo(2);
    assertThat(err()).startsWith("error: job file " + file + " line 10: no key before its '='");
    err.reset();
    assertThat(main("config", "check", file.toString(), "--set", "=oops")).isEqualTo(2);
    assertThat(err()).startsWith("error: --set =oops has no key before its '='");
    err.reset();
    file = job(UpperCaseTask.class, "job.instance.id=\\uzz");
    assertThat(main("config", "check", file.toString())).isEqualTo(2);
    assertThat(err()).startsWith("error: job file " + file + " line 10: bad escape");
  }

  @Test
  void relativePathsInAJobFileAreRelativeToItsFolderWhateverTheCurrentDirectory()
      throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("project/jobs"));
    Files.createDirectories(tmp.resolve("project/data"));
    Files.writeString(tmp.resolve("project/data/in.txt"), "a\nb\n");
    Path file = dir.resolve("upper.properties");
    Files.writeString(file, String.join("\n",
        "job.name=relative",
        "task.class=" + UpperCaseTask.class.getName(),
        "task.inputs=lines",
        "task.outputs=out",
        "streams.lines.system=file",
        "streams.lines.physical.name=../data/in.txt",
        "streams.out.system=file",
        "streams.out.physical.name=../output",
        "streams.out.file.truncate=true",
        "job.state.dir=../state", ""));
    assertThat(Path.of("").toAbsolutePath().startsWith(tmp.toAbsolutePath()))
        .as("the current directory is elsewhere").isFalse();

    assertThat(main("run", file.toString())).as(err()).isZero();

    assertThat(Files.readAllLines(tmp.resolve("project/output/part-00000")))
        .containsExactly("A", "B");
    assertThat(tmp.resolve("project/state/checkpoints")).isDirectory();
  }

  /**
   * A job file that relied on the current directory for its state (as Millrace read relative
   * paths before): its checkpoints are there, not next to the file, so run stops rather than
   * read its input again from the start. The current directory is the module's; the old state
   * goes under its target/.
   */
  @Test
  void runOfAJobWhoseCheckpointsAreWhereTheCurrentDirectoryPutThemExitsTwoNamingBoth()
      throws Exception {
    String state = "target/moved-state-" + System.nanoTime();
    Path before = Path.of(state).toAbsolutePath();
    Path now = tmp.resolve("jobs").resolve(state);
    Files.createDirectories(before.resolve("checkpoints"));
    Files.writeString(before.resolve("checkpoints/container-0.checkpoint"), "a checkpoint");
    Path input = tmp.resolve("in.txt");
    Files.writeString(input, "a\n");
    Path file = Files.createDirectories(tmp.resolve("jobs")).resolve("moved.properties");
    Files.writeString(file, String.join("\n", "job.name=moved",
        "task.class=" + UpperCaseTask.class.getName(), "task.inputs=lines",
        "streams.lines.system=file", "streams.lines.physical.name=" + input,
        "job.state.dir=" + state, ""));
    try {
      assertThat(main("run", file.toString())).isEqualTo(2);

      assertThat(err()).startsWith("error: job moved has no checkpoint in "
          + now.resolve("checkpoints") + ", but " + before.resolve("checkpoints")
          + " holds its checkpoints")
          .contains("Move " + before + " to " + now + ", or set job.state.dir=" + before);
      assertThat(now).as("nothing written where it looks now").doesNotExist();

      assertThat(main("status", file.toString())).isEqualTo(1);
      assertThat(out()).contains("note: job moved has no checkpoint in ");
    } finally {
      try (var files = Files.walk(before)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  @Test
  void aMissingInputNamesThePathAsWrittenAndTheFolderItIsRelativeTo() throws Exception {
    Path file = Files.createDirectories(tmp.resolve("jobs")).resolve("missing.properties");
    Files.writeString(file, String.join("\n", "job.name=missing",
        "task.class=" + UpperCaseTask.class.getName(), "task.inputs=lines",
        "streams.lines.system=file", "streams.lines.physical.name=../data/missing.txt",
        "job.state.dir=" + tmp.resolve("state"), ""));

    assertThat(main("run", file.toString())).isEqualTo(2);

    assertThat(err()).contains(tmp.resolve("data/missing.txt") + " does not exist")
        .contains("(streams.lines.physical.name=../data/missing.txt in " + file
            + ", relative to its folder " + tmp.resolve("jobs") + ")");
  }

  @Test
  void statusOfALocalJobWithoutAStatusPortSaysWhereToLookAndShowsItsLastCheckpoint()
      throws Exception {
    Path file = job(UpperCaseTask.class, "streams.out.file.truncate=true");
    assertThat(main("run", file.toString())).isZero();
    out.reset();

    assertThat(main("status", file.toString())).isEqualTo(1);

    assertThat(out()).contains("job cli-test runs every task in one process")
        .contains("metrics.http.port").contains("checkpoint: " + tmp.resolve("state/checkpoints"))
        .contains("lines/0  offset 13");
  }

  @Test
  void runWithABadConfigurationExitsTwo() throws Exception {
    Path file = job(UpperCaseTask.class);
    assertThat(main("run", file.toString(), "--set=job.container.count=zero")).isEqualTo(2);
    assertThat(err()).contains("job.container.count").contains("'zero'");
  }

  /**
   * A task compiled at test time into a jar of its own, as a user's project builds one: on no
   * classpath the test runs with.
   */
  private Path userJar() throws Exception {
    Path source = tmp.resolve("src/acme/ReverseTask.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, """
        package acme;

        import io.millrace.api.Collector;
        import io.millrace.api.TaskCoordinator;
        import io.millrace.api.Envelope;
        import io.millrace.api.StreamTask;

        public final class ReverseTask implements StreamTask {
          @Override
          public void process(Envelope e, Collector out, TaskCoordinator c) {
            out.send("out", 0, null, new StringBuilder((String) e.value()).reverse().toString());
          }
        }
        """);
    Path classes = tmp.resolve("classes");
    String api = Path.of(StreamTask.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI()).toString();
    int compiled = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d",
        classes.toString(), "-cp", api, source.toString());
    assertThat(compiled).as("javac exit code").isZero();
    Path jar = tmp.resolve("lib/user-task.jar");
    Files.createDirectories(jar.getParent());
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("acme/ReverseTask.class"));
      out.write(Files.readAllBytes(classes.resolve("acme/ReverseTask.class")));
      out.closeEntry();
    }
    return jar;
  }

  @Test
  void runWithClasspathRunsATaskFromTheUsersOwnJar() throws Exception {
    ClassLoader callers = Thread.currentThread().getContextClassLoader();
    Path jar = userJar();
    Path file = job("acme.ReverseTask", "streams.out.file.truncate=true");
    assertThatThrownBy(() -> Class.forName("acme.ReverseTask")).as("not on the test's classpath")
        .isInstanceOf(ClassNotFoundException.class);

    assertThat(main("run", "--classpath", jar.toString(), file.toString())).as(err()).isZero();
    assertThat(Files.readAllLines(tmp.resolve("out/part-00000")))
        .containsExactly("eno", "owt", "moob", "eerht");

    // A directory of jars, written as for java -cp, after the file; and config check too.
    out.reset();
    String dirOfJars = jar.getParent() + "/*";
    assertThat(main("run", file.toString(), "--classpath=" + dirOfJars)).as(err()).isZero();
    assertThat(main("config", "check", "--classpath", dirOfJars, file.toString())).isZero();
    assertThat(Thread.currentThread().getContextClassLoader())
        .as("the caller's loader is back").isSameAs(callers);
  }

  @Test
  void aTaskNotOnTheClasspathExitsTwoSayingHowToAddItsJar() throws Exception {
    Path file = job("acme.ReverseTask");
    assertThat(main("run", file.toString())).isEqualTo(2);
    assertThat(err()).contains("task.class").contains("acme.ReverseTask")
        .contains("--classpath");
  }

  @Test
  void aClasspathEntryThatDoesNotExistExitsTwoNamingIt() throws Exception {
    Path file = job("acme.ReverseTask");
    assertThat(main("run", "--classpath", tmp.resolve("missing.jar").toString(),
        file.toString())).isEqualTo(2);
    assertThat(err()).contains("--classpath entry").contains("missing.jar")
        .contains("does not exist");

    err.reset();
    Files.writeString(tmp.resolve("notes.txt"), "not a jar");
    assertThat(main("run", "--classpath", tmp.resolve("notes.txt").toString(),
        file.toString())).isEqualTo(2);
    assertThat(err()).contains("notes.txt").contains("neither a directory nor a .jar");

    err.reset();
    assertThat(main("run", "--classpath", tmp.resolve("nowhere") + "/*", file.toString()))
        .isEqualTo(2);
    assertThat(err()).contains("no such directory");
  }

  @Test
  void statusOfALocalJobThatIsNotRunningSaysNoProcessAnswersOnItsPort() throws Exception {
    int closed;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort(); // free again once closed: nothing answers there
    }
    Path file = job(UpperCaseTask.class, "metrics.http.port=" + closed);

    assertThat(main("status", file.toString())).isEqualTo(1);

    assertThat(out()).startsWith("job cli-test: no process answers on http://127.0.0.1:" + closed
        + "/status (metrics.http.port=" + closed + "): it is not running on this machine")
        .contains("checkpoint: none yet in " + tmp.resolve("state/checkpoints"));
  }
}
