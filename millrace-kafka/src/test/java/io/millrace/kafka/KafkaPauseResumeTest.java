package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slow task behind a deep backlog: the partition's buffer fills, fetching pauses, and resumes
 * when it drains, so what is buffered stays bounded (here ~100 KB while 3 MB wait on the broker).
 */
class KafkaPauseResumeTest {
  static final int RECORDS = 3_000;
  static final AtomicLong mostBuffered = new AtomicLong();
  static final AtomicInteger outOfOrder = new AtomicInteger();
  @TempDir Path state;

  /** Slow, and watches its own partition's buffer (on the loop thread, through the gauge). */
  public static final class SlowWatchingTask implements StreamTask, InitableTask {
    private io.millrace.core.metrics.DefaultMetricsRegistry metrics;
    private long last = -1;

    @Override
    public void init(TaskContext context) {
      metrics = (io.millrace.core.metrics.DefaultMetricsRegistry) context.metrics();
    }

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator)
        throws InterruptedException {
      if (envelope.offset() != last + 1) {
        outOfOrder.incrementAndGet();
      }
      last = envelope.offset();
      Long buffered = metrics.snapshot().get("task-0").get("in-0.buffered");
      mostBuffered.accumulateAndGet(buffered, Math::max);
      if (envelope.offset() % 5 == 0) {
        Thread.sleep(1);
      }
    }
  }

  @Test
  void aFullBufferPausesFetchingAndEveryRecordStillArrivesInOrder() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("backlog");
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    String payload = "x".repeat(1000);
    List<String[]> records = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      records.add(new String[] {"k", payload});
    }
    TestBroker.write(broker.bootstrapServers(), in, 0, records);

    Map<String, String> config = job(broker.bootstrapServers(), "pause-resume",
        SlowWatchingTask.class, in, null, state.toString());
    config.put("task.buffer.max.bytes", "20000"); // ~20 records
    config.put("systems.kafka.consumer.max.poll.records", "20");
    config.put("systems.kafka.consumer.max.partition.fetch.bytes", "25000");
    config.put("systems.kafka.handoff.batch.size", "10");
    config.put("systems.kafka.handoff.queue.batches", "2");
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), RECORDS + " processed", () -> runner.processed() >= RECORDS);
    stop(runner);

    assertThat(outOfOrder.get()).isZero();
    // Cap (20) + the record that crossed it + one poll (20) + the hand-off (2 queued batches of
    // 10, an open one, one being drained): never the 3,000 waiting on the broker.
    assertThat(mostBuffered.get()).as("most records buffered for the partition")
        .isBetween(1L, 100L);
  }
}
