/**
 * The coordinator SPI: how a process learns which tasks each of its containers runs.
 *
 * <p>{@code job.coordinator=local} (built in) gives every task to the process, spread over its
 * containers, once, at start. {@code job.coordinator=kafka} (millrace-kafka) shares the tasks among
 * every process running the job, over a Kafka consumer group. The runtime needs nothing else from a
 * coordinator: a third party implements {@link CoordinatorFactory}, lists it in
 * {@code META-INF/services/io.millrace.spi.coordinator.CoordinatorFactory}, and a job names it by
 * its short name.
 *
 * <p>The life of one container's membership:
 *
 * <pre>
 * JobCoordinator.join(container, listener)       -- at the container's start, on its loop thread
 * ContainerMembership.poll()  (again and again)  -- the membership's thread; may call, from
 *                                                   inside the call (each waits for the loop):
 *     listener.revoked(tasks)   commit and close them before returning
 *     listener.lost(tasks)      they belong to another member already: close without committing
 *     listener.assigned(tasks)  restore their stores, resume from their checkpoints
 * ContainerMembership.leave()                    -- at a clean stop, after the final commit and
 *                                                   once the membership's thread stopped
 * </pre>
 */
package io.millrace.spi.coordinator;
