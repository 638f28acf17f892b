package io.millrace.core.plan;

import java.util.List;

/**
 * A job as {@code millrace plan} shows it: what it reads and writes, the stores it keeps and,
 * for a job a translator made (a DSL job), its operators. Everything here is what restarts and
 * other processes find state by, so a change to it may orphan state ({@link Comparison}).
 *
 * @param job the job's name
 * @param task its task class
 * @param tasks how many tasks it runs (the partitions of each store)
 * @param streams its inputs, outputs and internal streams, in the job's order
 * @param stores its stores by name, in the job's order
 * @param operators the translator's operators (none for a task job)
 */
public record Outline(String job, String task, int tasks, List<Stream> streams,
    List<Store> stores, List<Operator> operators) {
  public Outline {
    streams = List.copyOf(streams);
    stores = List.copyOf(stores);
    operators = List.copyOf(operators);
  }

  /** What a stream is to the job. */
  public enum Role {
    /** Read only. */
    INPUT,
    /** Written only. */
    OUTPUT,
    /** Written and read back (a repartition): it holds records the job has not read yet. */
    INTERNAL;

    /** The word in a plan file. */
    public String word() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * A stream of the job.
   *
   * @param partitions its partitions: an input's as its system says, an output's or internal
   *     stream's as the job would create it
   */
  public record Stream(Role role, String id, String system, String physical, int partitions) {}

  /**
   * A store of the job.
   *
   * @param factory its engine, as the job names it
   * @param changelog {@code <system>.<stream>} of its changelog, or null without one
   * @param partitions one per task: task k keeps the keys of partition k
   */
  public record Store(String name, String factory, String keySerde, String valueSerde,
      String changelog, int partitions) {}

  /**
   * An operator of a translated job.
   *
   * @param name the user's name of it (a store's, a join's, a stream's), or null
   */
  public record Operator(String path, String kind, String name, List<String> stores) {
    public Operator {
      stores = List.copyOf(stores);
    }
  }
}
