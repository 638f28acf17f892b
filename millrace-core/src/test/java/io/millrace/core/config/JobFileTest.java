package io.millrace.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job file as the command line reads it: relative paths against its folder, whatever the
 * current directory; {@code --set} on top; and each bad line named by its number.
 */
class JobFileTest {
  @TempDir Path tmp;

  private Path file(String... lines) throws Exception {
    Path file = Files.createDirectories(tmp.resolve("jobs")).resolve("job.properties");
    Files.writeString(file, String.join("\n", lines) + "\n");
    return file;
  }

  @Test
  void relativePathsInTheFileAreRelativeToItsFolderNotTheCurrentDirectory() throws Exception {
    Path file = file("job.name=j",
        "streams.in.system=file", "streams.in.physical.name=../data/in.txt",
        "streams.out.system=file", "streams.out.physical.name=out",
        "streams.mem.system=memory", "streams.mem.physical.name=some-stream",
        "job.state.dir=state",
        "task.checkpoint.dir=./checkpoints",
        "systems.kafka.ssl.truststore.location=certs/trust.jks");
    Path folder = file.getParent().toAbsolutePath();
    assertThat(folder).isNotEqualTo(Path.of("").toAbsolutePath());

    JobConfig config = JobFile.load(file, List.of());

    assertThat(config.get("streams.in.physical.name"))
        .isEqualTo(tmp.toAbsolutePath().resolve("data/in.txt").toString());
    assertThat(config.get("streams.out.physical.name")).isEqualTo(folder.resolve("out").toString());
    assertThat(config.get("job.state.dir")).isEqualTo(folder.resolve("state").toString());
    assertThat(config.get("task.checkpoint.dir"))
        .isEqualTo(folder.resolve("checkpoints").toString());
    assertThat(config.get("systems.kafka.ssl.truststore.location"))
        .isEqualTo(folder.resolve("certs/trust.jks").toString());
    assertThat(config.get("streams.mem.physical.name")).as("a memory stream's name is no path")
        .isEqualTo("some-stream");
  }

  @Test
  void absolutePathsInTheFileStayAsTheyAre() throws Exception {
    Path input = tmp.resolve("elsewhere/in.txt");
    Path file = file("job.name=j", "streams.in.system=file",
        "streams.in.physical.name=" + input, "job.state.dir=" + tmp.resolve("state"));

    JobConfig config = JobFile.load(file, List.of());

    assertThat(config.get("streams.in.physical.name")).isEqualTo(input.toString());
    assertThat(config.get("job.state.dir")).isEqualTo(tmp.resolve("state").toString());
  }

  @Test
  void pathDefaultsAreRelativeToTheFilesFolderToo() throws Exception {
    Path file = file("job.name=counts", "streams.lines.system=file",
        "systems.disk.factory=file", "streams.more.system=disk");
    Path folder = file.getParent().toAbsolutePath();

    JobConfig config = JobFile.load(file, List.of());

    assertThat(config.get("job.state.dir")).isEqualTo(folder.resolve("state/counts").toString());
    assertThat(config.get("streams.lines.physical.name"))
        .isEqualTo(folder.resolve("lines").toString());
    assertThat(config.get("streams.more.physical.name")).as("a file system under another name")
        .isEqualTo(folder.resolve("more").toString());
  }

  @Test
  void setOverridesGoOnTopAndTheirPathsAreRelativeToTheCurrentDirectory() throws Exception {
    Path file = file("job.name=j", "streams.in.system=file", "streams.in.physical.name=in.txt",
        "task.commit.ms=1000");

    JobConfig config = JobFile.load(file, List.of("streams.in.physical.name = other.txt",
        "task.commit.ms=5"));

    assertThat(config.get("streams.in.physical.name")).isEqualTo("other.txt");
    assertThat(config.get("task.commit.ms")).isEqualTo("5");
    assertThat(config.source()).isEqualTo(file.toString());
  }

  @Test
  void aSetWithoutAKeyOrWithoutAnEqualsSignIsNamed() throws Exception {
    Path file = file("job.name=j");
    assertThatThrownBy(() -> JobFile.load(file, List.of("=oops")))
        .isInstanceOf(ConfigException.class).hasMessage(
            "--set =oops has no key before its '=' (the form is --set key=value)");
    assertThatThrownBy(() -> JobFile.load(file, List.of("task.commit.ms")))
        .hasMessage("--set task.commit.ms is not of the form key=value");
  }

  @Test
  void aLineWithoutAKeyIsNamedByItsNumber() throws Exception {
    Path file = file("# a job", "job.name=j", "", "=oops");
    assertThatThrownBy(() -> JobFile.load(file, List.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("job file " + file + " line 4: no key before its '=' ('=oops'); a line is "
            + "key=value");
  }

  @Test
  void aBadUnicodeEscapeIsNamedByItsLine() throws Exception {
    Path file = file("job.name=j", "streams.in.system=file",
        "streams.in.physical.name=C:\\users\\me\\in.txt");
    assertThatThrownBy(() -> JobFile.load(file, List.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("job file " + file + " line 3: bad escape '\\users'")
        .hasMessageContaining("four hex digits");
  }

  @Test
  void escapesThatAreFineAreNotFlaggedAndLinesAreCountedAcrossContinuations() throws Exception {
    Path file = file("task.inputs=a,\\", "  b", "job.name=caf\\u00e9", "path=C:\\\\users",
        "# \\u in a comment is nothing", "bad=\\u12");
    assertThatThrownBy(() -> JobFile.read(file)).hasMessageStartingWith(
        "job file " + file + " line 6: bad escape '\\u12'");
    Files.writeString(file, String.join("\n", "task.inputs=a,\\", "  b", "job.name=caf\\u00e9",
        "path=C:\\\\users", "# \\u in a comment is nothing"));
    assertThat(JobFile.read(file)).containsEntry("task.inputs", "a,b")
        .containsEntry("job.name", "café").containsEntry("path", "C:\\users");
  }

  @Test
  void aMissingFileIsNamedWithWhereItWasLookedFor() {
    Path missing = Path.of("no-such-dir", "job.properties");
    assertThatThrownBy(() -> JobFile.load(missing, Map.of()))
        .hasMessage("job file " + missing + " does not exist (looked for "
            + missing.toAbsolutePath() + ")");
  }

  /** A checkpoint file as the file store names it, in {@code dir}. */
  private static void checkpointIn(Path dir) throws Exception {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("container-0.checkpoint"), "a checkpoint");
  }

  @Test
  void checkpointsLeftWhereTheCurrentDirectoryPutThemAreNamedWithBothFoldersAndWhatToDo()
      throws Exception {
    Path project = tmp; // where the user ran millrace run jobs/job.properties before
    Path file = file("job.name=wordcount", "streams.in.system=file");
    checkpointIn(project.resolve("state/wordcount/checkpoints"));

    assertThat(JobFile.movedCheckpoints(file, Map.of(), project)).hasValueSatisfying(message ->
        assertThat(message).isEqualTo("job wordcount has no checkpoint in "
            + project.resolve("jobs/state/wordcount/checkpoints") + ", but "
            + project.resolve("state/wordcount/checkpoints") + " holds its checkpoints: Millrace "
            + "reads a relative path in a job file against the file's folder ("
            + project.resolve("jobs") + "), where it read its default state/wordcount against "
            + "the current directory before. Started so, the job would read its inputs again "
            + "from their offset.default. Move " + project.resolve("state/wordcount") + " to "
            + project.resolve("jobs/state/wordcount") + ", or set job.state.dir="
            + project.resolve("state/wordcount") + " in " + file));

    checkpointIn(project.resolve("jobs/state/wordcount/checkpoints")); // moved (or a new run)
    assertThat(JobFile.movedCheckpoints(file, Map.of(), project)).as("checkpoints where it looks")
        .isEmpty();
  }

  @Test
  void aCheckpointDirectoryWrittenInTheFileIsTheOneNamed() throws Exception {
    Path file = file("job.name=j", "task.checkpoint.dir=../cp");
    Path ranIn = tmp.resolve("a/b"); // ../cp from there: a/cp
    checkpointIn(tmp.resolve("a/cp"));

    assertThat(JobFile.movedCheckpoints(file, Map.of(), ranIn)).hasValueSatisfying(message ->
        assertThat(message).startsWith("job j has no checkpoint in " + tmp.resolve("cp") + ", but "
            + tmp.resolve("a/cp") + " holds its checkpoints")
            .contains("where it read task.checkpoint.dir=../cp against the current directory")
            .endsWith("Move " + tmp.resolve("a/cp") + " to " + tmp.resolve("cp") + ", or set "
                + "task.checkpoint.dir=" + tmp.resolve("a/cp") + " in " + file));
  }

  @Test
  void nothingIsMovedWhereThePathIsAbsoluteGivenWithSetKeptByASystemOrTheSameFolder()
      throws Exception {
    checkpointIn(tmp.resolve("state/j/checkpoints"));
    Path absolute = file("job.name=j", "job.state.dir=" + tmp.resolve("state/j"));
    assertThat(JobFile.movedCheckpoints(absolute, Map.of(), tmp)).isEmpty();

    Path file = file("job.name=j");
    assertThat(JobFile.movedCheckpoints(file, Map.of("job.state.dir", "state/j"), tmp))
        .as("--set: relative to the current directory, as before").isEmpty();
    assertThat(JobFile.movedCheckpoints(file, Map.of("task.checkpoint.system", "kafka"), tmp))
        .isEmpty();
    assertThat(JobFile.movedCheckpoints(file, Map.of(), file.getParent()))
        .as("run from the file's folder: the same folder either way").isEmpty();
  }

  @Test
  void anErrorNamingAPathOfTheFileSaysHowItWasWrittenAndWhatItIsRelativeTo() throws Exception {
    Path file = file("job.name=j", "streams.in.system=file",
        "streams.in.physical.name=../data/in.txt", "streams.lines.system=file");
    Path folder = file.getParent().toAbsolutePath();
    String missing = "input stream in: file or directory " + tmp.toAbsolutePath().resolve(
        "data/in.txt") + " does not exist (streams.in.physical.name)";

    assertThat(JobFile.explainPaths(missing, file, Map.of())).isEqualTo("input stream in: file "
        + "or directory " + tmp.toAbsolutePath().resolve("data/in.txt") + " does not exist "
        + "(streams.in.physical.name=../data/in.txt in " + file + ", relative to its folder "
        + folder + ")");
    assertThat(JobFile.explainPaths("input stream lines: file or directory "
        + folder.resolve("lines") + " does not exist (streams.lines.physical.name)", file,
        Map.of())).endsWith("(streams.lines.physical.name not set in " + file + ": its default "
            + "lines, relative to the file's folder " + folder + ")");
    assertThat(JobFile.explainPaths("a message naming no path", file, Map.of()))
        .isEqualTo("a message naming no path");
  }
}
