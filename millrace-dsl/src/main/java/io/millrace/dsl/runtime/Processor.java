package io.millrace.dsl.runtime;

/** One operator of a task's pipeline at work: takes a record, passes what it makes on. */
interface Processor {
  /**
   * Takes a record.
   *
   * @param timestamp its event time in ms, or -1 if it has none
   */
  void process(Object key, Object value, long timestamp);
}
