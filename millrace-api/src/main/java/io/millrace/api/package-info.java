/**
 * What a Millrace user codes against: tasks ({@link io.millrace.api.StreamTask} and its optional
 * life-cycle interfaces), the messages they get ({@link io.millrace.api.Envelope}), where they
 * send output ({@link io.millrace.api.Collector}) and how they ask for commits
 * ({@link io.millrace.api.TaskCoordinator}).
 */
package io.millrace.api;
