/**
 * The Nexmark queries on Kafka Streams 4.3's DSL and on Flink 2.2's DataStream API, each run in
 * a child JVM of {@code bench nexmark} and timed like Millrace's.
 */
package io.millrace.bench.peers.nexmark;
