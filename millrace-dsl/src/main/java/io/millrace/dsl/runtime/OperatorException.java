package io.millrace.dsl.runtime;

import io.millrace.dsl.plan.Node;

/**
 * An operator failed on a record: the user's function threw, a serde could not write what it
 * was given, or the record cannot go where the operator sends it. Thrown out of the task's
 * {@code process}, so the job's {@code task.error.policy} applies to the input record, and the
 * message names the operator.
 */
public final class OperatorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  OperatorException(Node node, String what, Throwable cause) {
    super(node.describe() + ": " + what + (cause == null ? "" : ": " + cause), cause);
  }

  /** The failure of {@code node} on a record, naming the record. */
  static OperatorException on(Node node, Object key, Object value, Throwable cause) {
    return new OperatorException(node, "failed on record (key " + abbreviate(key) + ", value "
        + abbreviate(value) + ")", cause);
  }

  private static String abbreviate(Object o) {
    String s = String.valueOf(o);
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }
}
