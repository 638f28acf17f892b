package io.millrace.spi.job;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a job written another way (a DSL application, a Samza job's properties) into a Millrace
 * job: a configuration in Millrace's own keys with a {@code task.class} that runs it. The runtime
 * asks every translator on the class path (found through {@link java.util.ServiceLoader}, listed
 * in {@code META-INF/services/io.millrace.spi.job.JobTranslator}) before it validates a job; the
 * one that {@linkplain #accepts accepts} the configuration translates it, and the job is then
 * validated and planned as if the user had written the result. A configuration no translator
 * accepts is a Millrace job as it stands. Two translators that accept the same configuration stop
 * the job at start, naming both.
 *
 * <p>Translation runs once per plan and must be deterministic: every container of a job, in every
 * process, translates the same configuration to the same job (the names of stores and streams in
 * it are what restarts and other processes find again).
 */
public interface JobTranslator {
  /** A short name for messages and logs, e.g. {@code dsl} or {@code samza}. */
  String name();

  /**
   * Whether this translator takes the configuration, e.g. because it names an application class
   * of its kind. Must not throw for a configuration of another kind.
   *
   * @param loader the class loader the job's classes are loaded with
   */
  boolean accepts(JobConfig config, ClassLoader loader);

  /**
   * Prefixes of keys (each ending in {@code .}) that the translator's task reads and the
   * translator has checked itself, e.g. {@code dsl.}: the runtime passes them to the task without
   * validating them.
   */
  Set<String> ownPrefixes();

  /**
   * The job in Millrace's keys.
   *
   * @param loader the class loader the job's classes are loaded with
   * @throws ConfigException naming the key, the value and what is allowed, when the configuration
   *     is wrong in a way only this translator can see
   */
  Translation translate(JobConfig config, ClassLoader loader);

  /**
   * A translated job.
   *
   * @param config the job's configuration in Millrace's keys, plus keys under {@link
   *     #ownPrefixes}
   * @param notes lines the runtime logs once at start, e.g. the keys that have no meaning here
   *     and why they are ignored
   */
  record Translation(Map<String, String> config, List<String> notes, List<Operator> operators) {
    public Translation {
      config = Map.copyOf(config);
      notes = List.copyOf(notes);
      operators = List.copyOf(operators);
    }

    /** A translation without operators to show ({@code millrace plan} lists none). */
    public Translation(Map<String, String> config, List<String> notes) {
      this(config, notes, List.of());
    }
  }

  /**
   * One operator of a translated job as {@code millrace plan} shows it, so that a user can see
   * which of their names made which store or stream.
   *
   * @param path where it sits in the job (e.g. {@code views/filter/map}); unique in the job
   * @param kind what it does ({@code map}, {@code windowed count}, ...)
   * @param name the name the user gave it (a store's, a join's), or null for an unnamed one
   * @param stores the stores it keeps its state in, by name
   */
  record Operator(String path, String kind, String name, List<String> stores) {
    public Operator {
      stores = List.copyOf(stores);
    }
  }
}
