package io.millrace.api;

/**
 * One partition of a stream, named as in the job's properties.
 *
 * @param system the system name ({@code systems.<name>.*})
 * @param stream the stream id ({@code streams.<id>.*})
 * @param partition the partition number
 */
public record StreamPartition(String system, String stream, int partition) {
  @Override
  public String toString() {
    return system + "." + stream + "/" + partition;
  }
}
