package io.millrace.core.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code millrace new}: the files it writes and the names it refuses. Building and running the
 * project it writes is the distribution's test (NewProjectBuildTest), against installed artifacts.
 */
class NewProjectTest {
  @TempDir Path tmp;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int main(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void writesAProjectWithTheTaskTheJobTheTestAndTheBuild() throws Exception {
    Path dir = tmp.resolve("Page-Counts");
    assertThat(main("new", dir.toString(), "--package", "org.acme.views")).as(err.toString())
        .isZero();

    assertThat(dir.resolve("src/main/java/org/acme/views/CountTask.java")).exists();
    assertThat(dir.resolve("src/main/java/org/acme/views/Main.java")).exists();
    assertThat(dir.resolve("src/test/java/org/acme/views/CountTaskTest.java")).exists();
    assertThat(dir.resolve("data/page-views.csv")).exists();
    String pom = Files.readString(dir.resolve("pom.xml"));
    assertThat(pom).contains("<artifactId>page-counts</artifactId>")
        .contains("<mainClass>org.acme.views.Main</mainClass>")
        .contains("<artifactId>millrace-test</artifactId>")
        .doesNotContain("{{").doesNotContain("millrace-kafka")
        .containsPattern("<millrace.version>\\d+\\.\\d+\\.\\d+[^<]*</millrace.version>");
    assertThat(Files.readString(dir.resolve("job.properties")))
        .contains("task.class=org.acme.views.CountTask").contains("streams.views.system=file");
    assertThat(out.toString()).contains("mvn package").contains("target/page-counts.jar");
  }

  @Test
  void aDirectoryNamedLikeAJavaKeywordGetsTheDefaultPackage() throws Exception {
    Path dir = tmp.resolve("new");
    assertThat(main("new", dir.toString())).as(err.toString()).isZero();
    assertThat(dir.resolve("src/main/java/com/example/job/CountTask.java")).exists();
  }

  @Test
  void onKafkaTheJobReadsTopicsAndThePomAddsTheKafkaSystem() throws Exception {
    Path dir = tmp.resolve("counts");
    assertThat(main("new", dir.toString(), "--kafka")).isZero();
    assertThat(Files.readString(dir.resolve("pom.xml"))).contains("millrace-kafka");
    assertThat(Files.readString(dir.resolve("job.properties")))
        .contains("job.coordinator=kafka").contains("streams.views.physical.name=counts-page-views")
        .contains("task.class=com.example.counts.CountTask");
    assertThat(dir.resolve("data")).doesNotExist();
  }

  @Test
  void refusesABadPackageANonEmptyDirectoryAndAMissingOne() throws Exception {
    assertThat(main("new", tmp.resolve("a").toString(), "--package", "org.class.x")).isEqualTo(2);
    assertThat(err.toString()).contains("--package org.class.x").contains("'class'");

    err.reset();
    Files.createDirectories(tmp.resolve("b"));
    Files.writeString(tmp.resolve("b/file.txt"), "x");
    assertThat(main("new", tmp.resolve("b").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("not an empty directory");

    err.reset();
    assertThat(main("new")).isEqualTo(2);
    assertThat(err.toString()).contains("no directory given").contains("millrace new <dir>");

    err.reset();
    assertThat(main("new", tmp.resolve("9lives").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("must start with a letter");
  }
}
