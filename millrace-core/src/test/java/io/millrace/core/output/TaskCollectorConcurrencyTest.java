package io.millrace.core.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import io.millrace.core.async.BufferedCollector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * An async task's threads send through a {@link BufferedCollector} (which checks the output name
 * on the sending thread) while the loop thread sends through the task's own collector, whose last
 * route is cached: every send must still reach the output it names.
 */
class TaskCollectorConcurrencyTest {
  /** Checks that each output's sends carry that output's name as their value. */
  static final class CheckingProducer implements SystemProducer {
    final String[] names = {"a", "b"};
    final AtomicLong misrouted = new AtomicLong();

    @Override
    public void register(int index, StreamSpec stream, int partitionCount) {}

    @Override
    public void start() {}

    @Override
    public void send(int index, int partition, Object key, Object value, long timestamp) {
      if (!names[index].equals(value)) {
        misrouted.incrementAndGet();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void stop() {}
  }

  @Test
  void sendsFromTheLoopReachTheirOutputWhileOtherThreadsCheckOutputNames() throws Exception {
    CheckingProducer producer = new CheckingProducer();
    TaskCollector collector = new TaskCollector(Map.of(
        "a", new OutputRoute("a", producer, 0, 1), "b", new OutputRoute("b", producer, 1, 1)),
        "task 0");
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> senders = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Thread sender = new Thread(() -> {
        BufferedCollector buffered = new BufferedCollector(collector, -1);
        long n = 0;
        while (running.get()) {
          String name = (n++ & 1) == 0 ? "b" : "a";
          buffered.send(name, 0, null, name, -1, null);
          if ((n & 1023) == 0) {
            buffered = new BufferedCollector(collector, -1); // let the held sends go
          }
        }
      }, "async-sender-" + i);
      sender.start();
      senders.add(sender);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    long sent = 0;
    try {
      while (System.nanoTime() < deadline) {
        String name = (sent++ & 1) == 0 ? "a" : "b"; // interned literals, as a task's would be
        collector.send(name, null, name);
      }
    } finally {
      running.set(false);
      for (Thread sender : senders) {
        sender.join();
      }
    }
    assertThat(producer.misrouted.get()).as("of %d sends", sent).isZero();
  }
}
