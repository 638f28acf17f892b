package io.millrace.core.store;

import io.millrace.spi.system.SystemConsumer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The process's changelog readers, one per changelog system, each made at its system's first use
 * and shared by every container's restores and the standby copies; all are used on the state
 * updater's thread. Closed by the process once that thread has ended.
 */
public final class SharedChangelogReaders implements AutoCloseable {
  private final Function<String, SystemConsumer> consumerOf;
  private final Map<String, ChangelogReader> bySystem = new ConcurrentHashMap<>();

  /** @param consumerOf makes a consumer of a changelog system, built as the job's own */
  public SharedChangelogReaders(Function<String, SystemConsumer> consumerOf) {
    this.consumerOf = consumerOf;
  }

  /** The reader of {@code system}'s changelogs. Any thread; the reader is the updater's. */
  public ChangelogReader of(String system) {
    return bySystem.computeIfAbsent(system,
        s -> new ChangelogReader(s, () -> consumerOf.apply(s)));
  }

  /** Stops every reader's consumer. */
  @Override
  public void close() {
    bySystem.values().forEach(ChangelogReader::close);
  }
}
