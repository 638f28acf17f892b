package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.core.embed.RunningJob;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.samza.context.Context;
import org.apache.samza.storage.kv.Entry;
import org.apache.samza.storage.kv.KeyValueIterator;
import org.apache.samza.storage.kv.KeyValueStore;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.OutgoingMessageEnvelope;
import org.apache.samza.system.SystemStream;
import org.apache.samza.system.SystemStreamPartition;
import org.apache.samza.task.ClosableTask;
import org.apache.samza.task.EndOfStreamListenerTask;
import org.apache.samza.task.InitableTask;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.StreamTaskFactory;
import org.apache.samza.task.TaskCoordinator;
import org.apache.samza.task.WindowableTask;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Samza StreamTasks, written against Samza's API, run by Millrace's runtime. */
class SamzaStreamTaskTest {
  @TempDir Path state;

  static final List<IncomingMessageEnvelope> SEEN = Collections.synchronizedList(new ArrayList<>());
  static final List<String> CALLS = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void reset() {
    SEEN.clear();
    CALLS.clear();
  }

  /** Records what it is given, and each life-cycle call. */
  @SuppressWarnings("deprecation") // Samza's ClosableTask, which Samza still calls
  public static final class RecordingTask
      implements StreamTask, InitableTask, EndOfStreamListenerTask, ClosableTask {
    @Override
    public void init(Context context) {
      CALLS.add("init " + context.getTaskContext().getTaskModel().getTaskName().getTaskName()
          + " " + context.getJobContext().getJobName() + " "
          + context.getTaskContext().getTaskModel().getSystemStreamPartitions());
    }

    @Override
    public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator) {
      SEEN.add(envelope);
    }

    @Override
    public void onEndOfStream(MessageCollector collector, TaskCoordinator coordinator) {
      CALLS.add("end of stream");
    }

    @Override
    public void close() {
      CALLS.add("close");
    }
  }

  @Test
  void aSamzaTaskGetsSamzasEnvelopeWithItsStreamPartitionOffsetKeyMessageAndEventTime()
      throws Exception {
    String in = SamzaTestJobs.unique("in");
    MemoryStream input = SamzaTestJobs.input(in, 1);
    input.append(0, "k1", "v1", 1_700_000_000_000L, Headers.EMPTY);
    input.append(0, "k2", "v2", 1_700_000_000_001L, Headers.EMPTY);
    input.seal();
    Map<String, String> config = SamzaTestJobs.memoryJob(RecordingTask.class, in, state);
    long before = System.currentTimeMillis();
    SamzaTestJobs.runToEnd(config);

    assertThat(SEEN).hasSize(2);
    IncomingMessageEnvelope first = SEEN.get(0);
    assertThat(first.getSystemStreamPartition())
        .isEqualTo(new SystemStreamPartition("mem", in, new org.apache.samza.Partition(0)));
    assertThat(first.getOffset()).isEqualTo("0");
    assertThat(first.getKey()).isEqualTo("k1");
    assertThat(first.getMessage()).isEqualTo("v1");
    assertThat(first.getEventTime()).isEqualTo(1_700_000_000_000L);
    assertThat(first.getArrivalTime()).isGreaterThanOrEqualTo(before);
    assertThat(SEEN.get(1).getOffset()).isEqualTo("1");
    assertThat(CALLS).containsExactly(
        "init Partition 0 " + config.get("job.name") + " [SystemStreamPartition [mem, " + in
            + ", 0]]",
        "end of stream", "close");
  }

  /** Makes a recording task per partition, counting them. */
  public static final class RecordingTaskFactory implements StreamTaskFactory {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger MADE = new AtomicInteger();

    @Override
    public StreamTask createInstance() {
      MADE.incrementAndGet();
      return new RecordingTask();
    }
  }

  /** Records, per message, whether the arrival clock's thread was ticking. */
  public static final class ClockWatchingTask implements StreamTask {
    static final List<Boolean> TICKING = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator) {
      TICKING.add(arrivalClockTicks());
    }
  }

  private static boolean arrivalClockTicks() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals("millrace-samza-arrival-clock") && t.isAlive());
  }

  @Test
  void theArrivalClockTicksWhileTheJobsTasksAreOpenAndStopsWhenTheyClose() throws Exception {
    String in = SamzaTestJobs.unique("in");
    MemoryStream input = SamzaTestJobs.input(in, 2);
    input.append(0, "k1", "v1", 1L, Headers.EMPTY);
    input.append(1, "k2", "v2", 2L, Headers.EMPTY);
    input.seal();
    ClockWatchingTask.TICKING.clear();

    SamzaTestJobs.runToEnd(SamzaTestJobs.memoryJob(ClockWatchingTask.class, in, state));

    assertThat(ClockWatchingTask.TICKING).containsExactly(true, true);
    Await.until(Await.DEADLINE, "the arrival clock's thread to end with the job's tasks",
        () -> !arrivalClockTicks());
  }

  @Test
  void aStreamTaskFactoryMakesOneTaskPerPartition() throws Exception {
    String in = SamzaTestJobs.unique("in");
    MemoryStream input = SamzaTestJobs.input(in, 2);
    input.append(0, null, "zero");
    input.append(1, null, "one");
    input.seal();
    RecordingTaskFactory.MADE.set(0);
    SamzaTestJobs.runToEnd(SamzaTestJobs.memoryJob(RecordingTaskFactory.class, in, state));
    assertThat(RecordingTaskFactory.MADE.get()).isEqualTo(2);
    assertThat(SEEN).extracting(IncomingMessageEnvelope::getMessage)
        .containsExactlyInAnyOrder("zero", "one");
  }

  /** Counts words in a RocksDB store; at the end of its input sends each count, keyed. */
  public static final class WordCountTask
      implements StreamTask, InitableTask, EndOfStreamListenerTask {
    static final SystemStream COUNTS = new SystemStream("mem", "unset");
    static volatile String output;
    private KeyValueStore<String, Integer> store;

    @Override
    @SuppressWarnings("unchecked")
    public void init(Context context) {
      store = (KeyValueStore<String, Integer>) context.getTaskContext().getStore("counts");
    }

    @Override
    public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator) {
      for (String word : ((String) envelope.getMessage()).split(" ")) {
        Integer count = store.get(word);
        store.put(word, count == null ? 1 : count + 1);
      }
    }

    @Override
    public void onEndOfStream(MessageCollector collector, TaskCoordinator coordinator) {
      KeyValueIterator<String, Integer> all = store.all();
      try {
        while (all.hasNext()) {
          Entry<String, Integer> entry = all.next();
          collector.send(new OutgoingMessageEnvelope(new SystemStream("mem", output),
              entry.getKey(), entry.getValue()));
        }
      } finally {
        all.close();
      }
    }
  }

  @Test
  void aWordCountKeepsItsCountsInARocksDbStoreThroughSamzasSerdes() throws Exception {
    String in = SamzaTestJobs.unique("lines");
    String out = SamzaTestJobs.unique("counts");
    MemoryStream input = SamzaTestJobs.input(in, 1);
    // Bytes in, as Kafka gives them: the stream's Samza serde reads them.
    for (String line : List.of("a b a", "c a b")) {
      input.append(0, null, line.getBytes(StandardCharsets.UTF_8));
    }
    input.seal();
    WordCountTask.output = out;
    Map<String, String> config = SamzaTestJobs.memoryJob(WordCountTask.class, in, state);
    config.put("systems.mem.samza.msg.serde", "string");
    config.put("systems.mem.streams." + out + ".samza.msg.serde", "integer");
    config.put("systems.mem.streams." + out + ".samza.key.serde", "string");
    config.put("stores.counts.factory", SamzaTestJobs.ROCKSDB_FACTORY);
    config.put("stores.counts.key.serde", "string");
    config.put("stores.counts.msg.serde", "integer");
    SamzaTestJobs.runToEnd(config);

    List<String> counts = new ArrayList<>();
    for (Envelope e : MemoryStreams.get(out).messages()) {
      counts.add(new String((byte[]) e.key(), StandardCharsets.UTF_8) + "="
          + java.nio.ByteBuffer.wrap((byte[]) e.value()).getInt());
    }
    assertThat(counts).containsExactly("a=3", "b=2", "c=1");
  }

  /** Sends once per window and from a scheduled callback, on an input that never ends. */
  public static final class TimedTask implements StreamTask, InitableTask, WindowableTask {
    static volatile String output;
    static final AtomicInteger WINDOWS = new AtomicInteger();

    @Override
    public void init(Context context) {
      context.getTaskContext().getCallbackScheduler().scheduleCallback("later",
          System.currentTimeMillis() + 20, (key, collector, coordinator) ->
              collector.send(new OutgoingMessageEnvelope(new SystemStream("mem", output),
                  "callback " + key)));
      context.getTaskContext().getCallbackScheduler().scheduleCallback("never",
          System.currentTimeMillis() + 10, (key, collector, coordinator) ->
              collector.send(new OutgoingMessageEnvelope(new SystemStream("mem", output),
                  "deleted callback ran")));
      context.getTaskContext().getCallbackScheduler().deleteCallback("never");
    }

    @Override
    public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator) {}

    @Override
    public void window(MessageCollector collector, TaskCoordinator coordinator) {
      if (WINDOWS.incrementAndGet() == 1) {
        collector.send(new OutgoingMessageEnvelope(new SystemStream("mem", output), "window"));
      }
    }
  }

  @Test
  void windowsAndScheduledCallbacksRunAndADeletedCallbackDoesNot() throws Exception {
    String in = SamzaTestJobs.unique("quiet");
    String out = SamzaTestJobs.unique("timed");
    SamzaTestJobs.input(in, 1); // never sealed: the job runs until stopped
    TimedTask.output = out;
    TimedTask.WINDOWS.set(0);
    Map<String, String> config = SamzaTestJobs.memoryJob(TimedTask.class, in, state);
    config.put("task.window.ms", "10");
    config.put("task.outputs", "mem." + out);
    try (RunningJob job = SamzaTestJobs.start(config)) {
      Await.until(Await.DEADLINE, "a window and the callback sent",
          () -> MemoryStreams.get(out) != null && MemoryStreams.get(out).messages().size() >= 2);
      Await.until(Await.DEADLINE, "two windows past the deleted callback's time",
          () -> TimedTask.WINDOWS.get() >= 5);
      job.stop();
    }
    List<Object> sent = new ArrayList<>();
    MemoryStreams.get(out).messages().forEach(e -> sent.add(e.value()));
    assertThat(sent).containsExactlyInAnyOrder("window", "callback later");
  }
}
