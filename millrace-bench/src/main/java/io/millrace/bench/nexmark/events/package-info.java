/**
 * Nexmark's three events (person, auction, bid) and the one binary codec every system measured
 * reads them with ({@link io.millrace.bench.nexmark.events.EventCodec}).
 */
package io.millrace.bench.nexmark.events;
