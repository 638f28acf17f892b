package io.millrace.samza.config;

/**
 * A Samza stream ({@code <system>.<physical name>}, Samza's {@code SystemStream}) and the id the
 * translated Millrace job gives it ({@code streams.<id>.*}).
 *
 * @param system the system's name ({@code systems.<system>.*})
 * @param physicalName the stream's name in its system (a Kafka topic)
 * @param id the Millrace stream id: the physical name with every character other than a letter,
 *     digit, {@code -} or {@code _} made {@code _} (Millrace ids have no dots); where two of the
 *     job's streams would share it, the later in {@code system.stream} order gets {@code -2}
 *     ({@code -3}, ...)
 */
public record SamzaStream(String system, String physicalName, String id) {
  /** As Samza writes it: {@code system.stream}. */
  public String samzaName() {
    return system + "." + physicalName;
  }
}
