package io.millrace.dsl.runtime;

import io.millrace.dsl.plan.Node;

/** What an operator on event time (a window, a stream-stream join) needs of each record. */
final class EventTimeRecords {
  private EventTimeRecords() {}

  /**
   * A record with an event time and a key, or an error naming the operator.
   *
   * @param purpose what the key is for, in the error ("aggregate", "join")
   */
  static void check(Node node, Object key, Object value, long timestamp, String purpose) {
    try {
      if (timestamp < 0) {
        throw new IllegalArgumentException("the record has no event time (" + timestamp
            + "): give its source a timestamp extractor (Source.withTimestamps)");
      }
      if (key == null) {
        throw new NullPointerException("a record to " + purpose + " needs a key");
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
  }
}
