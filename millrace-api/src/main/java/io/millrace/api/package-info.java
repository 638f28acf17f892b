/**
 * What a Millrace user codes against: tasks ({@link io.millrace.api.StreamTask} and its optional
 * life-cycle interfaces), the messages they get ({@link io.millrace.api.Envelope}), where they
 * send output ({@link io.millrace.api.Collector}) and how they ask for commits
 * ({@link io.millrace.api.TaskCoordinator}); their stores ({@code io.millrace.api.store}), metrics
 * ({@code io.millrace.api.metrics}) and configuration ({@code io.millrace.api.config}).
 *
 * <p>What a plug-in implements (systems, storage engines, checkpoint stores, coordinators) is the
 * SPI, in {@code io.millrace.spi}: a task never needs it.
 */
package io.millrace.api;
