package io.millrace.api;

/**
 * What {@code task.error.policy=dead-letter} writes to {@code task.dead.letter.stream} for a
 * message that failed: where it came from, its raw or deserialized key and value, and the error.
 *
 * @param stream the input stream id
 * @param partition the partition number
 * @param offset the message's offset
 * @param key the message key (deserialized if it could be read, raw otherwise)
 * @param value the message value (deserialized if it could be read, raw otherwise)
 * @param error the error's class and message
 * @param stage {@code read} if the message could not be deserialized, {@code process} if the task
 *     threw
 */
public record DeadLetter(
    String stream, int partition, long offset, Object key, Object value, String error,
    String stage) {}
