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

  /**
   * The project builds with the plug-ins (their versions) and the JUnit Platform launcher of
   * Millrace's own build, which installs them with its artifacts: so it builds offline after.
   */
  @Test
  void theProjectBuildsWithTheVersionsOfMillracesOwnBuild() throws Exception {
    java.util.Properties build = new java.util.Properties();
    try (var in = NewProject.class.getResourceAsStream("build.properties")) {
      build.load(in);
    }
    Path dir = tmp.resolve("versions");
    assertThat(main("new", dir.toString())).as(err.toString()).isZero();

    String pom = Files.readString(dir.resolve("pom.xml"));
    for (String plugin : new String[] {"compiler", "surefire", "jar", "resources", "install",
        "assembly"}) {
      String version = build.getProperty(plugin + ".plugin.version");
      assertThat(version).as(plugin).matches("\\d+\\.\\d+\\.\\d+");
      assertThat(pom).containsPattern("<artifactId>maven-" + plugin + "-plugin</artifactId>\\s*"
          + "<version>" + java.util.regex.Pattern.quote(version) + "</version>");
    }
    assertThat(build.getProperty("junit.platform.version"))
        .as("the launcher named for Surefire is the JUnit Platform that junit.version brings")
        .isEqualTo(org.junit.platform.engine.TestEngine.class.getPackage()
            .getImplementationVersion());
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

  @Test
  void saysWhatToInstallFirstWhenTheLocalMavenRepositoryLacksMillrace() throws Exception {
    Path empty = Files.createDirectories(tmp.resolve("empty-repository"));
    PrintStream printed = new PrintStream(out, true, StandardCharsets.UTF_8);

    assertThat(NewProject.run(new String[] {tmp.resolve("job-a").toString()}, printed, empty))
        .isZero();
    assertThat(out.toString()).contains("note: it builds against io.millrace:millrace-core, "
        + "millrace-test:").contains(empty.toString())
        .contains("mvn install -DskipTests in Millrace's repository");

    out.reset();
    Path full = tmp.resolve("full-repository");
    String version = Files.readString(tmp.resolve("job-a/pom.xml"))
        .replaceAll("(?s).*<millrace.version>([^<]+)</millrace.version>.*", "$1");
    for (String id : new String[] {"millrace-core", "millrace-test"}) {
      Path pom = full.resolve("io/millrace/" + id + "/" + version + "/" + id + "-" + version
          + ".pom");
      Files.createDirectories(pom.getParent());
      Files.writeString(pom, "<project/>");
    }
    assertThat(NewProject.run(new String[] {tmp.resolve("job-b").toString()}, printed, full))
        .isZero();
    assertThat(out.toString()).doesNotContain("note:");
  }

  @Test
  void theLocalMavenRepositoryIsFoundWhereMavenLooks() throws Exception {
    Path home = Files.createDirectories(tmp.resolve("home"));
    assertThat(LocalMavenRepository.find(java.util.Map.of(), home))
        .isEqualTo(home.resolve(".m2/repository"));
    Files.createDirectories(home.resolve(".m2"));
    Files.writeString(home.resolve(".m2/settings.xml"),
        "<settings><localRepository>${user.home}/repo</localRepository></settings>");
    assertThat(LocalMavenRepository.find(java.util.Map.of(), home))
        .isEqualTo(home.resolve("repo"));
    Files.writeString(home.resolve(".m2/settings.xml"), """
        <settings>
          <!-- localRepository
           | The path to the local repository maven will use to store artifacts.
           | Default: ${user.home}/.m2/repository
          <localRepository>/path/to/local/repo</localRepository>
          -->
        </settings>
        """);
    assertThat(LocalMavenRepository.find(java.util.Map.of(), home))
        .as("Maven's stock settings.xml: its localRepository is in a comment")
        .isEqualTo(home.resolve(".m2/repository"));
    assertThat(LocalMavenRepository.find(java.util.Map.of("MAVEN_OPTS",
        "-Xmx1g -Dmaven.repo.local=/srv/m2 -Dx=y"), home)).isEqualTo(Path.of("/srv/m2"));
  }
}
