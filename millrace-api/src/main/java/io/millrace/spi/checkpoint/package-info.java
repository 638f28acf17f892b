/**
 * The checkpoint SPI: where a job keeps the offsets it has processed ({@link
 * io.millrace.spi.checkpoint.CheckpointStore}) and how one container writes them at each commit
 * ({@link io.millrace.spi.checkpoint.CheckpointWriter}). Files are built in; a coordinator that
 * fences members which lost their tasks (Kafka's group) brings its own.
 */
package io.millrace.spi.checkpoint;
