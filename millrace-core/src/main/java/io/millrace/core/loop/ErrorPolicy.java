package io.millrace.core.loop;

/** What a message that cannot be read, or makes the task throw, does ({@code task.error.policy}). */
public enum ErrorPolicy {
  /** Stop the container; nothing past the message is committed. */
  FAIL,
  /** Count it, log it, go on. */
  SKIP,
  /** Write it with its error to {@code task.dead.letter.stream}, go on. */
  DEAD_LETTER;

  /** The policy named in the job's properties. */
  public static ErrorPolicy of(String name) {
    return switch (name) {
      case "fail" -> FAIL;
      case "skip" -> SKIP;
      case "dead-letter" -> DEAD_LETTER;
      default -> throw new IllegalArgumentException(name);
    };
  }
}
