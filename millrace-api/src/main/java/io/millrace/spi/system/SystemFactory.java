package io.millrace.spi.system;

import java.util.Set;

/**
 * The entry point of a system (a source and sink of streams): the runtime creates one factory per
 * {@code systems.<name>.factory} and asks it for consumers, producers and an admin.
 *
 * <p>Built-in systems: {@code memory}, {@code generator}, {@code file}. Another module (Kafka)
 * plugs in by naming its factory class in {@code systems.<name>.factory}; the core never needs to
 * know it.
 *
 * <p>Threading: factories are called from the thread that starts the job.
 */
public interface SystemFactory {
  /**
   * The keys this system accepts after {@code systems.<name>.}, e.g. {@code root.dir}. A key that
   * ends in {@code .*} accepts any suffix (a pass-through such as {@code consumer.*}). The runtime
   * rejects any other key at start, naming it.
   */
  Set<String> systemKeys();

  /**
   * The keys this system accepts after {@code streams.<id>.} for streams on it, in addition to the
   * runtime's own stream keys, with the same {@code .*} convention.
   */
  Set<String> streamKeys();

  /**
   * Checks this system's keys and values; throws {@link IllegalArgumentException} with a message
   * that names the key, the value and what is allowed.
   */
  default void validate(SystemContext context) {}

  /**
   * A short name a job may give in {@code systems.<name>.factory} instead of the class name (and
   * which a system of that name uses without any factory key), e.g. {@code kafka}. The runtime
   * finds factories with short names through {@link java.util.ServiceLoader}: list the class in
   * {@code META-INF/services/io.millrace.spi.system.SystemFactory}. Default: none.
   */
  default String shortName() {
    return null;
  }

  /**
   * Whether the system writes a container's outputs, changelogs and checkpoints (when it keeps
   * them) as one transaction per commit, which {@code task.processing.guarantee=exactly-once}
   * needs: its producers then commit and abort with the checkpoint, and its consumers read only
   * committed data. Default: false (the job is refused under exactly-once).
   */
  default boolean supportsTransactions() {
    return false;
  }

  /** The admin, for partition counts and offsets; one per job process. */
  SystemAdmin admin(SystemContext context);

  /** A consumer for one container; called once per container that reads from this system. */
  SystemConsumer consumer(SystemContext context);

  /** A producer for one container; called once per container that writes to this system. */
  SystemProducer producer(SystemContext context);
}
