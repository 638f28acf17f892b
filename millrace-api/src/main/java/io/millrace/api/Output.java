package io.millrace.api;

/**
 * A handle to one of a task's output streams, resolved once in {@link InitableTask#init} with
 * {@link TaskContext#output(String)} so that sending does no lookup by name.
 */
public interface Output {
  /** The stream's id in the job's properties. */
  String id();

  /** The number of partitions of the stream. */
  int partitionCount();
}
