/**
 * Peer benchmarks: Millrace's end-to-end jobs run on Apache Samza 1.8 in-process, for same-run
 * comparisons. Compiled only by the {@code peers} Maven profile; see docs/peers.md.
 */
package io.millrace.bench.peers;
