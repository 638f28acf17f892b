package io.millrace.samza.task;

import io.millrace.api.config.JobConfig;
import io.millrace.samza.config.SamzaStream;
import io.millrace.samza.config.StreamKeys;
import io.millrace.samza.serde.SerdeRegistry;
import org.apache.samza.serializers.Serde;

/** A stream's key and message serdes, as its Samza keys name them (null: none). */
record StreamSerdes(Serde<Object> key, Serde<Object> msg) {
  static StreamSerdes of(JobConfig config, SerdeRegistry registry, SamzaStream stream) {
    StreamKeys keys = new StreamKeys(config);
    return new StreamSerdes(
        serde(config, registry, keys.keyOf(stream.system(), stream.physicalName(),
            StreamKeys.KEY_SERDE)),
        serde(config, registry, keys.keyOf(stream.system(), stream.physicalName(),
            StreamKeys.MSG_SERDE)));
  }

  private static Serde<Object> serde(JobConfig config, SerdeRegistry registry, String key) {
    return key == null ? null : registry.serde(key, config.get(key));
  }
}
