package io.millrace.bench.scaleout;

/**
 * One scale-out job as both systems run it.
 *
 * @param group the group id (Millrace's job name, Kafka Streams' application id)
 * @param bootstrap the broker
 * @param in the input topic
 * @param out the output topic
 * @param count true: count per key in a changelogged store; false: stateless
 * @param sessionMs the session timeout both systems use
 * @param standbys standby replicas of each stateful task, both systems
 * @param exactlyOnce true: Millrace's {@code exactly-once}, Kafka Streams' {@code
 *     exactly_once_v2}, each with its own default commit interval (100 ms both)
 */
record JobSpec(String group, String bootstrap, String in, String out, boolean count,
    long sessionMs, int standbys, boolean exactlyOnce) {}
