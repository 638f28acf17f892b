package io.millrace.core.system.memory;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.config.AnyInteger;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Synthetic input for examples and benchmarks ({@code streams.<id>.generator.*}): N messages over
 * P partitions, values of a fixed payload size, keys drawn from a fixed cardinality.
 *
 * <p>Message {@code i} goes to partition {@code i % P} with key {@code key-(i % keys)}. Keys and a
 * pool of 1,024 random payloads are built once and shared, so a 10M-message stream costs its
 * envelopes, not 10M payload arrays.
 *
 * @param messages total messages
 * @param partitions partitions of the stream
 * @param payloadBytes bytes per value
 * @param keys distinct keys
 * @param live false: the stream is filled before the job starts; true: a feed thread generates
 *     messages while the job runs, handing them to the loop in batches
 * @param seed the random seed of the payloads
 */
public record GeneratorSpec(
    long messages, int partitions, int payloadBytes, int keys, boolean live, long seed) {
  static final String MESSAGES = "generator.messages";
  static final String PARTITIONS = "generator.partitions";
  static final String PAYLOAD = "generator.payload.bytes";
  static final String KEYS = "generator.keys";
  static final String MODE = "generator.mode";
  static final String SEED = "generator.seed";
  private static final int PAYLOAD_POOL = 1024;

  /** The generator of a stream, or null if its config has none. */
  static GeneratorSpec of(String streamId, Map<String, String> streamConfig) {
    if (!streamConfig.containsKey(MESSAGES)) {
      return null;
    }
    JobConfig c = new JobConfig(prefixed(streamId, streamConfig), "stream " + streamId);
    String p = "streams." + streamId + ".";
    return new GeneratorSpec(
        c.getLong(p + MESSAGES, 0, 0),
        c.getInt(p + PARTITIONS, 1, 1),
        c.getInt(p + PAYLOAD, 100, 0),
        c.getInt(p + KEYS, 1000, 1),
        "live".equals(c.getChoice(p + MODE, "preloaded", "preloaded", "live")),
        AnyInteger.of(c, p + SEED, 42, "an integer (the payloads' random seed: any, negative "
            + "ones too)"));
  }

  private static Map<String, String> prefixed(String streamId, Map<String, String> config) {
    Map<String, String> result = new java.util.TreeMap<>();
    config.forEach((k, v) -> result.put("streams." + streamId + "." + k, v));
    return result;
  }

  /** Messages of one partition. */
  long messagesOf(int partition) {
    return messages / partitions + (partition < messages % partitions ? 1 : 0);
  }

  /** The shared keys. */
  String[] keyPool() {
    String[] pool = new String[keys];
    for (int i = 0; i < keys; i++) {
      pool[i] = "key-" + i;
    }
    return pool;
  }

  /** The shared payloads. */
  byte[][] payloadPool() {
    SplittableRandom random = new SplittableRandom(seed);
    byte[][] pool = new byte[PAYLOAD_POOL][payloadBytes];
    for (byte[] payload : pool) {
      for (int i = 0; i < payload.length; i++) {
        payload[i] = (byte) ('a' + random.nextInt(26));
      }
    }
    return pool;
  }

  /**
   * Fills a new sealed stream with every message. Envelopes carry the job's stream id, so the
   * consumer hands them over without copying.
   */
  MemoryStream fill(String name, String streamId) {
    if (messages > (long) Integer.MAX_VALUE * partitions) {
      throw new ConfigException("generator.messages " + messages + " is too many for " + partitions
          + " partitions of a memory stream");
    }
    MemoryStream stream = MemoryStreams.create(name, partitions, streamId);
    String[] keyPool = keyPool();
    byte[][] payloads = payloadPool();
    long[] next = new long[partitions];
    for (long i = 0; i < messages; i++) {
      int p = (int) (i % partitions);
      String key = keyPool[(int) (i % keys)];
      stream.appendEnvelope(new io.millrace.api.Envelope(streamId, p, next[p]++, key,
          payloads[(int) (i & (PAYLOAD_POOL - 1))], -1, payloadBytes + key.length()));
    }
    stream.seal();
    return stream;
  }
}
