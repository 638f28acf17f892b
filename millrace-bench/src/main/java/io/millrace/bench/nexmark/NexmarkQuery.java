package io.millrace.bench.nexmark;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The Nexmark queries this benchmark runs, as Flink's nexmark suite defines them (see
 * docs/benchmarks.md, "Nexmark", for each one's definition and where it departs from Beam's).
 * Each query's output is a stream of records whose values are text lines ({@link Lines}); an
 * {@link Output#APPEND} query's result is the multiset of its lines, a {@link Output#TABLE}
 * query's the lines of the last value per record key (null deletes the key), so a system that
 * emits each window once and one that emits every update of it (Kafka Streams' KTables) are
 * compared on what they end with.
 */
public enum NexmarkQuery {
  Q0("bid", Output.APPEND),
  Q1("bid", Output.APPEND),
  Q2("bid", Output.APPEND),
  Q3("person,auction", Output.TABLE),
  Q4("auction,bid", Output.TABLE),
  Q5("bid", Output.TABLE),
  Q7("bid", Output.TABLE),
  Q8("person,auction", Output.TABLE),
  Q11("bid", Output.TABLE);

  /** How a query's output records make its result. */
  public enum Output {
    /** Every record is a result line. */
    APPEND,
    /**
     * Each record updates its key: the result is the lines of the last value per key (several
     * lines, separated by newlines, where a window has ties).
     */
    TABLE
  }

  private final List<String> inputs;
  private final Output output;

  NexmarkQuery(String inputs, Output output) {
    this.inputs = List.of(inputs.split(","));
    this.output = output;
  }

  /** The events it reads: some of {@code person}, {@code auction}, {@code bid}. */
  public List<String> inputs() {
    return inputs;
  }

  /** How its output makes its result. */
  public Output output() {
    return output;
  }

  /** Its name on the command line and in RESULT lines: {@code q0}, {@code q11}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The query named {@code name} ({@code q5}, case ignored).
   *
   * @throws IllegalArgumentException naming the unknown query and the known ones
   */
  public static NexmarkQuery named(String name) {
    for (NexmarkQuery q : values()) {
      if (q.label().equalsIgnoreCase(name.trim())) {
        return q;
      }
    }
    throw new IllegalArgumentException("unknown Nexmark query '" + name + "'; known: "
        + Arrays.stream(values()).map(NexmarkQuery::label).collect(Collectors.joining(",")));
  }
}
