package io.millrace.core.job;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.job.JobTranslator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the {@link JobTranslator} that accepts a job's configuration (a DSL application, a
 * Samza job) before the job is validated. The translated configuration carries {@value #MARK}
 * with the translator's name, so that translating it again changes nothing and validation knows
 * whose own keys it holds.
 */
public final class JobTranslators {
  /** Set on a translated configuration to the translator's name; not a key users write. */
  public static final String MARK = "job.translated.by";

  private static final Logger LOG = LoggerFactory.getLogger(JobTranslators.class);

  private JobTranslators() {}

  /**
   * The configuration as the translator that accepts it translates it, or {@code config} itself
   * when none does (or it was translated already).
   *
   * @throws ConfigException if two translators accept it, or the translator finds it wrong
   */
  public static JobConfig translate(JobConfig config, ClassLoader loader) {
    return translation(config, loader).config();
  }

  /**
   * A job's configuration as translated, with the operators the translator shows for it.
   *
   * @param config the configuration in Millrace's keys ({@code translate}'s answer)
   * @param operators what the translator shows of the job's operators (none for a task job)
   */
  public record Translated(JobConfig config, List<JobTranslator.Operator> operators) {}

  /**
   * As {@link #translate}, with the operators the translator shows.
   *
   * @throws ConfigException if two translators accept it, or the translator finds it wrong
   */
  public static Translated translation(JobConfig config, ClassLoader loader) {
    if (config.get(MARK) != null) {
      return new Translated(config, List.of());
    }
    List<JobTranslator> accepting = new ArrayList<>();
    for (JobTranslator translator : all(loader)) {
      if (accepts(translator, config, loader)) {
        accepting.add(translator);
      }
    }
    if (accepting.isEmpty()) {
      return new Translated(config, List.of());
    }
    if (accepting.size() > 1) {
      throw new ConfigException(config.source() + " is taken by two kinds of job, "
          + accepting.get(0).name() + " and " + accepting.get(1).name()
          + ": leave out the keys of the one it is not");
    }
    JobTranslator translator = accepting.get(0);
    JobTranslator.Translation translation = translator.translate(config, loader);
    for (String note : translation.notes()) {
      LOG.info("{}: {}", translator.name(), note);
    }
    Map<String, String> values = new HashMap<>(translation.config());
    values.put(MARK, translator.name());
    return new Translated(new JobConfig(values, config.source()), translation.operators());
  }

  /**
   * The prefixes of keys that the translator of a translated configuration checked itself (none
   * for a configuration no translator took).
   */
  static Set<String> ownPrefixes(JobConfig config, ClassLoader loader) {
    String name = config.get(MARK);
    if (name == null) {
      return Set.of();
    }
    for (JobTranslator translator : all(loader)) {
      if (translator.name().equals(name)) {
        return translator.ownPrefixes();
      }
    }
    throw new ConfigException(MARK + "=" + name + " in " + config.source()
        + ": no such translator on the class path");
  }

  /**
   * Whether the translator takes the configuration. A translator that cannot run here (its
   * module is on the class path but a library it needs is not: millrace-samza without samza-api)
   * takes nothing, with a warning: a plug-in's missing library must not stop every other job.
   */
  private static boolean accepts(JobTranslator translator, JobConfig config,
      ClassLoader loader) {
    try {
      return translator.accepts(config, loader);
    } catch (LinkageError e) {
      LOG.warn("job translator {} ({}) cannot run and takes no job: {}", translator.name(),
          translator.getClass().getName(), e.toString());
      return false;
    }
  }

  private static List<JobTranslator> all(ClassLoader loader) {
    List<JobTranslator> found = new ArrayList<>();
    var services = ServiceLoader.load(JobTranslator.class, loader).iterator();
    while (true) {
      try {
        if (!services.hasNext()) {
          return found;
        }
        found.add(services.next());
      } catch (java.util.ServiceConfigurationError | LinkageError e) {
        LOG.warn("a job translator on the class path cannot be loaded and is left out: {}",
            e.toString());
      }
    }
  }
}
