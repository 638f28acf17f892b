package io.millrace.spi.system;

import io.millrace.api.Serde;

/**
 * A stream as the runtime hands it to a system: its id in the job, its physical name in the
 * system and its serdes.
 *
 * @param id the stream id ({@code streams.<id>.*})
 * @param physicalName the name in the system (a topic, a path); defaults to the id
 * @param keySerde deserializes keys on input, serializes them on output
 * @param valueSerde deserializes values on input, serializes them on output
 */
public record StreamSpec(String id, String physicalName, Serde<?> keySerde, Serde<?> valueSerde) {}
