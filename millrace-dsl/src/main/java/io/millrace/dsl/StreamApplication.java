package io.millrace.dsl;

/**
 * A job written as a pipeline of operators. Name the class in the job's properties as
 * {@code app.class=com.example.PageViews}, beside the streams' systems; the DSL turns it into a
 * job of one task class that runs the pipeline.
 *
 * <pre>{@code
 * public final class WordCount implements StreamApplication {
 *   public void describe(StreamGraph graph) {
 *     graph.<String, String>stream("lines")
 *         .flatMap((k, line) -> words(line))
 *         .groupByKey()
 *         .count(Stored.as("counts"))
 *         .to("counts");
 *   }
 * }
 * }</pre>
 *
 * <p>{@link #describe} runs once when the job starts and once in each task: it must describe the
 * same pipeline every time (no randomness, no reading of the clock or of outside state), or the
 * tasks refuse to start. The class needs a public no-argument constructor.
 */
public interface StreamApplication {
  /** Describes the pipeline on {@code graph}. */
  void describe(StreamGraph graph);
}
