/**
 * The system SPI: how a source and sink of streams (memory, files, Kafka) plugs into the runtime.
 * Partitions and outputs are named by dense integer indices the runtime assigns at start, so
 * nothing on the per-message path looks up a composite key.
 */
package io.millrace.spi.system;
