/**
 * Nexmark's event generator, after Beam's ({@code sdks/java/testing/nexmark}, read for its rules,
 * not copied): persons, auctions and bids in 1:3:46, hot auctions, sellers and bidders, a window
 * of in-flight auctions and active persons, event time derived from the event number, an optional
 * out-of-order delivery, all deterministic from a seed; and the loader that writes a run's events
 * to Kafka.
 */
package io.millrace.bench.nexmark.generator;
