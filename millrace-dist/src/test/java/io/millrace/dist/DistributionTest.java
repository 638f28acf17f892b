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
        .anyMatch(j -> j.startsWith("kafka-clients-"))
        .anyMatch(j -> j.startsWith("rocksdbjni-"))
        .noneMatch(j -> j.startsWith("jmh-") || j.startsWith("millrace-bench")
            || j.startsWith("millrace-examples") || j.startsWith("junit"));
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

  @Test
  void aTaskNotOnTheClasspathExitsTwoSayingHowToAddItsJar() throws Exception {
    Result run = millrace("run", job("acme.NowhereTask").toString());

    assertThat(run.exit).as(run.output).isEqualTo(2);
    assertThat(run.output).contains("acme.NowhereTask").contains("--classpath");
  }

  private record Result(int exit, String output) {}

  private static Result millrace(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/millrace").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .directory(tmp.toFile());
    builder.environment().put("MILLRACE_OPTS", "-Xmx256m");
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("exited").isTrue();
    return new Result(process.exitValue(), output);
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
        import io.millrace.api.Coordinator;
        import io.millrace.api.Envelope;
        import io.millrace.api.StreamTask;

        public final class ShoutTask implements StreamTask {
          @Override
          public void process(Envelope e, Collector out, Coordinator c) {
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
