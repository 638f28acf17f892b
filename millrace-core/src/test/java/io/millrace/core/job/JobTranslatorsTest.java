package io.millrace.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.job.JobTranslator;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a job written another way becomes a Millrace job: the translator that accepts it (found
 * through ServiceLoader, listed in this module's test resources) translates it before validation.
 */
class JobTranslatorsTest {
  @TempDir Path tmp;

  /** Takes a configuration with {@code words.file}: a file job of the recording task. */
  public static final class WordsTranslator implements JobTranslator {
    @Override
    public String name() {
      return "words";
    }

    @Override
    public Set<String> ownPrefixes() {
      return Set.of("words.");
    }

    @Override
    public boolean accepts(JobConfig config, ClassLoader loader) {
      return config.get("words.file") != null;
    }

    @Override
    public Translation translate(JobConfig config, ClassLoader loader) {
      Path file = Path.of(config.required("words.file"));
      Map<String, String> job = new HashMap<>(config.asMap());
      job.putAll(JobTestSupport.fileJob(file.getParent(), file,
          JobTestSupport.RecordingTask.class));
      return new Translation(job, List.of("words.file is read as lines"));
    }
  }

  /** Takes a configuration with {@code greedy=true}, as a second kind of job would. */
  public static final class GreedyTranslator implements JobTranslator {
    @Override
    public String name() {
      return "greedy";
    }

    @Override
    public Set<String> ownPrefixes() {
      return Set.of();
    }

    @Override
    public boolean accepts(JobConfig config, ClassLoader loader) {
      return "true".equals(config.get("greedy"));
    }

    @Override
    public Translation translate(JobConfig config, ClassLoader loader) {
      throw new AssertionError("never chosen in these tests");
    }
  }

  /**
   * Fails as a translator whose library is missing does (millrace-samza without samza-api), on
   * a configuration with {@code library.missing=true}.
   */
  public static final class LibraryMissingTranslator implements JobTranslator {
    @Override
    public String name() {
      return "library-missing";
    }

    @Override
    public Set<String> ownPrefixes() {
      return Set.of();
    }

    @Override
    public boolean accepts(JobConfig config, ClassLoader loader) {
      if (!"true".equals(config.get("library.missing"))) {
        return false;
      }
      throw new NoClassDefFoundError("org/example/MissingLibrary");
    }

    @Override
    public Translation translate(JobConfig config, ClassLoader loader) {
      throw new AssertionError("never chosen");
    }
  }

  private Map<String, String> wordsJob() throws Exception {
    Path file = JobTestSupport.writeLines(tmp.resolve("in.txt"), List.of("a", "b"));
    Map<String, String> config = new HashMap<>();
    config.put("words.file", file.toString());
    config.put("words.anything", "the translator's own key");
    return config;
  }

  @Test
  void aConfigurationNoTranslatorAcceptsStaysAsItIs() throws Exception {
    Path file = JobTestSupport.writeLines(tmp.resolve("in.txt"), List.of("a"));
    JobConfig config = JobConfig.of(
        JobTestSupport.fileJob(tmp, file, JobTestSupport.RecordingTask.class));
    assertThat(JobTranslators.translate(config, getClass().getClassLoader())).isSameAs(config);
  }

  @Test
  void theAcceptingTranslatorsJobIsPlannedWithItsOwnKeysPassedThrough() throws Exception {
    JobConfig config = JobConfig.of(wordsJob());
    JobConfig translated = JobTranslators.translate(config, getClass().getClassLoader());
    assertThat(translated.get("task.class"))
        .isEqualTo(JobTestSupport.RecordingTask.class.getName());
    assertThat(translated.get(JobTranslators.MARK)).isEqualTo("words");
    assertThat(JobTranslators.translate(translated, getClass().getClassLoader()))
        .as("translating again changes nothing").isSameAs(translated);
    JobPlanner.check(config);
    JobPlan plan = JobPlanner.plan(config);
    try {
      assertThat(plan.config().get("words.anything")).isEqualTo("the translator's own key");
      assertThat(plan.taskCount()).isEqualTo(1);
    } finally {
      plan.close();
    }
  }

  @Test
  void aMisspeltKeyOutsideTheTranslatorsPrefixesIsStillNamed() throws Exception {
    Map<String, String> config = wordsJob();
    config.put("task.comit.ms", "100");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown key task.comit.ms");
  }

  @Test
  void aConfigurationTwoTranslatorsAcceptIsRefusedNamingBoth() throws Exception {
    Map<String, String> config = wordsJob();
    config.put("greedy", "true");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("words").hasMessageContaining("greedy");
  }

  @Test
  void aTranslatorWhoseLibraryIsMissingTakesNoJobAndStopsNone() throws Exception {
    Map<String, String> job = wordsJob();
    job.put("library.missing", "true");
    JobConfig config = JobConfig.of(job);
    JobConfig translated = JobTranslators.translate(config, getClass().getClassLoader());
    assertThat(translated.get(JobTranslators.MARK)).isEqualTo("words");
  }
}
