package io.millrace.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.StreamTask;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged distribution, unpacked as a user would on a machine: its launcher runs a job whose
 * task is in the user's own jar, and it holds the runtime but not the benchmarks.
 */
class DistributionTest {
  @TempDir static Path tmp;
  private static Path home;

  @BeforeAll
  static void unpack() throws Exception {
    Path archive = Path.of(System.getProperty("millrace.dist.archive"));
    assertThat(archive).as("the distribution's archive").exists();
    Process tar = new ProcessBuilder("tar", "xzf", archive.toString(), "-C", tmp.toString())
        .inheritIO().start();
    assertThat(tar.waitFor()).isZero();
    try (Stream<Path> unpacked = Files.list(tmp)) {
      home = unpacked.filter(p -> p.getFileName().toString().startsWith("millrace-"))
          .findFirst().orElseThrow();
    }
  }

  @Test
  void holdsTheRuntimeTheSystemsAndTheEnginesButNotTheBenchmarks() throws IOException {
    assertThat(home.resolve("bin/millrace")).isExecutable();
    List<String> jars = new ArrayList<>();
    try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
      lib.forEach(p -> jars.add(p.getFileName().toString()));
    }
    assertThat(jars).anyMatch(j -> j.startsWith("millrace-api-"))
        .anyMatch(j -> j.startsWith("millrace-core-"))
        .anyMatch(j -> j.startsWith("millrace-kafka-"))
        .anyMatch(j -> j.startsWith("millrace-rocksdb-"))
        .anyMatch(j -> j.startsWith("millrace-dsl-"))
        .anyMatch(j -> j.startsWith("kafka-clients-"))
        .anyMatch(j -> j.startsWith("rocksdbjni-"))
        .anyMatch(j -> j.startsWith("millrace-samza-"))
        .anyMatch(j -> j.startsWith("samza-api-"))
        .noneMatch(j -> j.startsWith("jmh-") || j.startsWith("millrace-bench")
            || j.startsWith("millrace-examples") || j.startsWith("junit"));
  }

  @Test
  void runsASamzaJobsTaskAndPropertiesAsTheyAre() throws Exception {
    Path source = tmp.resolve("samza-src/acme/UpperTask.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, """
        package acme;

        import org.apache.samza.system.IncomingMessageEnvelope;
        import org.apache.samza.system.OutgoingMessageEnvelope;
        import org.apache.samza.system.SystemStream;
        import org.apache.samza.task.MessageCollector;
        import org.apache.samza.task.StreamTask;
        import org.apache.samza.task.TaskCoordinator;

        public final class UpperTask implements StreamTask {
          private static final SystemStream OUT = new SystemStream("files", "samza-out");

          @Override
          public void process(IncomingMessageEnvelope e, MessageCollector c, TaskCoordinator t) {
            c.send(new OutgoingMessageEnvelope(OUT, ((String) e.getMessage()).toUpperCase()));
          }
        }
        """);
    Path samzaApi;
    try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
      samzaApi = lib.filter(p -> p.getFileName().toString().startsWith("samza-api-"))
          .findFirst().orElseThrow();
    }
    Path classes = tmp.resolve("samza-classes");
    assertThat(ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d",
        classes.toString(), "-cp", samzaApi.toString(), source.toString())).as("javac").isZero();
    Files.writeString(tmp.resolve("samza-in.txt"), "hello\nsamza\n");
    Path job = tmp.resolve("upper.properties");
    Files.writeString(job, String.join("\n",
        "job.name=upper",
        "job.factory.class=org.apache.samza.job.yarn.YarnJobFactory",
        "yarn.package.path=file:///upper-dist.tar.gz",
        "task.class=acme.UpperTask",
        "task.inputs=files.samza-in.txt",
        "task.outputs=files.samza-out",
        "systems.files.factory=file",
        "job.state.dir=" + tmp.resolve("samza-state"), ""));

    Result run = millrace("run", "--classpath", classes.toString(), job.toString());

    assertThat(run.exit).as(run.output).isZero();
    assertThat(run.output).contains("job upper done", "ignored job.factory.class, yarn.package.path");
    assertThat(Files.readAllLines(tmp.resolve("samza-out/part-00000")))
        .containsExactly("HELLO", "SAMZA");
  }

  @Test
  void runsAJobWhoseTaskIsInTheUsersOwnJar() throws Exception {
    Path jar = userJar();
    Path job = job("acme.ShoutTask");

    Result run = millrace("run", "--classpath", jar.toString(), job.toString());

    assertThat(run.exit).as(run.output).isZero();
    assertThat(run.output).contains("job shout done");
    assertThat(Files.readAllLines(tmp.resolve("out/part-00000")))
        .containsExactly("ONE!", "TWO!");
  }

  /** The launcher runs millrace-samza's own command: its help, and a job it cannot take back. */
  @Test
  void theSamzaExportCommandRunsAndRefusesAJobWithoutSamzasKafkaCheckpointsNamingTheKey()
      throws Exception {
    Result help = millrace("samza", "export-checkpoint", "--help");
    assertThat(help.exit).as(help.output).isZero();
    assertThat(help.output).contains("usage: millrace samza export-checkpoint");

    Path job = tmp.resolve("samza-file-checkpoints.properties");
    Files.writeString(job, String.join("\n",
        "job.name=upper",
        "task.class=acme.UpperTask",
        "task.inputs=files.samza-in.txt",
        "task.checkpoint.factory=org.apache.samza.checkpoint.file.FileSystemCheckpointManagerFactory",
        ""));
    Result run = millrace("samza", "export-checkpoint", job.toString());

    assertThat(run.exit).as(run.output).isEqualTo(2);
    assertThat(run.output.strip()).startsWith("error: bad value").contains(
        "task.checkpoint.factory", "KafkaCheckpointManagerFactory").doesNotContain("\n");
  }

  @Test
  void aTaskNotOnTheClasspathExitsTwoSayingHowToAddItsJar() throws Exception {
    Result run = millrace("run", job("acme.NowhereTask").toString());

    assertThat(run.exit).as(run.output).isEqualTo(2);
    assertThat(run.output).contains("acme.NowhereTask").contains("--classpath");
  }

  /**
   * {@code millrace new}'s project, as its README says to use it: built offline against the
   * artifacts this build installed (its own test, on the test driver, runs in the build), then
   * its jar runs the job. The Kafka variant is built and tested (its test needs no broker).
   */
  @Test
  void theNewCommandWritesAProjectThatBuildsOfflineTestsItselfAndRuns() throws Exception {
    assertInstalledArtifactsAreThisBuilds();
    Result written = millrace("new", "page-counts", "--package", "org.acme.views");
    assertThat(written.exit).as(written.output).isZero();
    Path project = tmp.resolve("page-counts");

    Result build = run(project, 600, mvn(), "-o", "-B", "-q", "package");
    assertThat(build.exit).as(build.output).isZero();
    assertThat(project.resolve("target/surefire-reports")).isDirectoryContaining(
        p -> p.getFileName().toString().equals("TEST-org.acme.views.CountTaskTest.xml"));

    Result job = run(project, 120, javaCommand(), "-Xmx256m", "-jar", "target/page-counts.jar",
        "job.properties");
    assertThat(job.exit).as(job.output).isZero();
    assertThat(job.output).contains("job page-counts done: 6 messages");
    assertThat(Files.readAllLines(project.resolve("output/counts/part-00000")))
        .containsExactly("alice\t1", "bob\t1", "alice\t2", "carol\t1", "alice\t3", "bob\t2");

    // The README's way to run one's own jar with the distribution, as written there, and the
    // same in the project's own README.
    String form = readmeCommand("millrace run --classpath").replace("my-job", "page-counts");
    assertThat(Files.readString(project.resolve("README.md"))).contains(form);
    List<String> asWritten = new ArrayList<>(List.of(form.split(" ")));
    asWritten.set(0, home.resolve("bin/millrace").toString());
    deleteRecursively(project.resolve("output")); // its checkpoint: the next run reads it all
    Result distribution = run(project, 120, asWritten.toArray(String[]::new));
    assertThat(distribution.exit).as(distribution.output).isZero();
    assertThat(distribution.output).contains("job page-counts done");
    assertThat(Files.readAllLines(project.resolve("output/counts/part-00000")))
        .containsExactly("alice\t1", "bob\t1", "alice\t2", "carol\t1", "alice\t3", "bob\t2");

    // From another directory: the job file's relative paths are its folder's, not the caller's.
    deleteRecursively(project.resolve("output"));
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    Result fromElsewhere = run(elsewhere, 120, home.resolve("bin/millrace").toString(), "run",
        "--classpath", project.resolve("target/page-counts.jar").toString(),
        project.resolve("job.properties").toString());
    assertThat(fromElsewhere.exit).as(fromElsewhere.output).isZero();
    assertThat(Files.readAllLines(project.resolve("output/counts/part-00000"))).hasSize(6);
    try (Stream<Path> left = Files.list(elsewhere)) {
      assertThat(left).as("nothing written where it was run from").isEmpty();
    }

    assertThat(millrace("new", "kafka-counts", "--kafka").exit).isZero();
    Result kafkaBuild = run(tmp.resolve("kafka-counts"), 600, mvn(), "-o", "-B", "-q",
        "package");
    assertThat(kafkaBuild.exit).as(kafkaBuild.output).isZero();
    assertThat(tmp.resolve("kafka-counts/target/kafka-counts.jar")).exists();
  }

  /** The README's command that starts with {@code prefix}, as written in one of its blocks. */
  private static String readmeCommand(String prefix) throws IOException {
    Path readme = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent()
        .resolve("README.md");
    return Files.readAllLines(readme).stream().map(String::strip)
        .filter(line -> line.startsWith(prefix)).findFirst()
        .orElseThrow(() -> new AssertionError("README.md has no line starting " + prefix));
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** The project builds against the local repository: it must hold this build's artifacts. */
  private static void assertInstalledArtifactsAreThisBuilds() throws IOException {
    String version = System.getProperty("millrace.version");
    Path installed = Path.of(System.getProperty("millrace.local.repository"),
        "io/millrace/millrace-core", version, "millrace-core-" + version + ".jar");
    Path built = Path.of(System.getProperty("millrace.core.jar"));
    assertThat(Files.exists(installed) && Files.mismatch(installed, built) == -1)
        .as("the local repository's %s is this build's %s: run the tests with mvn install (the "
            + "README's test command), which installs each module before the next one's tests",
            installed, built).isTrue();
  }

  private static String mvn() {
    return Path.of(System.getProperty("maven.home"), "bin", "mvn").toString();
  }

  private static String javaCommand() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private record Result(int exit, String output) {}

  /** Runs a command in {@code dir}; its output goes to a file, so a hang meets the time-out. */
  private static Result run(Path dir, int timeoutSeconds, String... command) throws Exception {
    Path log = Files.createTempFile(tmp, "command", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()).directory(dir.toFile());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    builder.environment().put("MILLRACE_OPTS", "-Xmx256m");
    builder.environment().put("MAVEN_OPTS", "-Xmx512m -Dmaven.repo.local="
        + System.getProperty("millrace.local.repository"));
    Process process = builder.start();
    boolean exited = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(exited).as("%s exited within %d s; it printed:%n%s", List.of(command),
        timeoutSeconds, output).isTrue();
    return new Result(process.exitValue(), output);
  }

  private static Result millrace(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/millrace").toString()));
    command.addAll(List.of(args));
    return run(tmp, 120, command.toArray(String[]::new));
  }

  private static Path job(String task) throws IOException {
    Path input = tmp.resolve("in.txt");
    Files.writeString(input, "one\ntwo\n");
    Path file = tmp.resolve(task + ".properties");
    Files.writeString(file, String.join("\n",
        "job.name=shout",
        "task.class=" + task,
        "task.inputs=lines",
        "task.outputs=out",
        "streams.lines.system=file",
        "streams.lines.physical.name=" + input,
        "streams.out.system=file",
        "streams.out.physical.name=" + tmp.resolve("out"),
        "streams.out.file.truncate=true",
        "job.state.dir=" + tmp.resolve("state"), ""));
    return file;
  }

  /** A task compiled into a jar of its own, as the user's build makes one. */
  private static Path userJar() throws Exception {
    Path source = tmp.resolve("src/acme/ShoutTask.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, """
        package acme;

        import io.millrace.api.Collector;
        import io.millrace.api.TaskCoordinator;
        import io.millrace.api.Envelope;
        import io.millrace.api.StreamTask;

        public final class ShoutTask implements StreamTask {
          @Override
          public void process(Envelope e, Collector out, TaskCoordinator c) {
            out.send("out", 0, null, ((String) e.value()).toUpperCase() + "!");
          }
        }
        """);
    Path classes = tmp.resolve("classes");
    String api = Path.of(StreamTask.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI()).toString();
    assertThat(ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d",
        classes.toString(), "-cp", api, source.toString())).as("javac").isZero();
    Path jar = tmp.resolve("shout.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("acme/ShoutTask.class"));
      out.write(Files.readAllBytes(classes.resolve("acme/ShoutTask.class")));
      out.closeEntry();
    }
    return jar;
  }
}
