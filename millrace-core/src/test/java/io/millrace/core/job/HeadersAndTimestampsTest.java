package io.millrace.core.job;

import static io.millrace.core.job.JobTestSupport.runOk;
import static io.millrace.core.job.JobTestSupport.unique;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskCallback;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Headers and timestamps through the memory system: an output carries its input's timestamp
 * unless sent with its own, headers only when given, and one sent outside a message has none.
 */
class HeadersAndTimestampsTest {
  @TempDir Path tmp;
  private final List<String> streams = new ArrayList<>();

  @AfterEach
  void drop() {
    streams.forEach(MemoryStreams::drop);
  }

  /** Per message: a plain send, and one with its own timestamp and an added header. */
  public static class TraceTask implements StreamTask, EndOfStreamListener {
    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {
      out.send("out", 0, e.key(), "plain " + e.value());
      out.send("out", 0, e.key(), "traced " + e.value(), e.timestamp() + 5,
          e.headers().with("seen-by", "trace"));
    }

    @Override
    public void onEndOfStream(Collector out, TaskCoordinator coordinator) {
      out.send("out", 0, null, "end");
    }
  }

  /** Completes each message later, on another thread, after sending from there. */
  public static class LaterTask implements AsyncStreamTask {
    @Override
    public void processAsync(Envelope e, Collector out, TaskCoordinator c, TaskCallback callback) {
      CompletableFuture.runAsync(() -> {
        out.send("out", 0, e.key(), "later " + e.value());
        callback.complete();
      }, CompletableFuture.delayedExecutor(5, TimeUnit.MILLISECONDS));
    }
  }

  private List<Envelope> run(Class<?> task) throws Exception {
    String in = unique("trace-in");
    String out = unique("trace-out");
    streams.add(in);
    streams.add(out);
    MemoryStream input = MemoryStreams.create(in, 1);
    input.append(0, "k", "a", 1_000, Headers.of("trace-id", "t1"));
    input.append(0, "k", "b", 2_000, Headers.EMPTY);
    input.seal();
    Map<String, String> config = JobTestSupport.memoryJob(tmp, unique("trace-job"), task, in,
        out);
    if (AsyncStreamTask.class.isAssignableFrom(task)) {
      config.put("task.max.concurrency", "2");
    }
    runOk(config);
    return MemoryStreams.get(out).messages(0);
  }

  @Test
  void anOutputCarriesItsInputsTimestampOrItsOwnAndOnlyTheHeadersGiven() throws Exception {
    List<Envelope> out = run(TraceTask.class);
    assertThat(out).extracting(Envelope::value).containsExactly("plain a", "traced a",
        "plain b", "traced b", "end");
    assertThat(out).extracting(Envelope::timestamp).containsExactly(1_000L, 1_005L, 2_000L,
        2_005L, -1L);
    assertThat(out.get(0).headers()).isSameAs(Headers.EMPTY);
    assertThat(out.get(1).headers().lastString("trace-id")).isEqualTo("t1");
    assertThat(out.get(1).headers().lastString("seen-by")).isEqualTo("trace");
    assertThat(out.get(3).headers().lastString("trace-id")).isNull();
  }

  @Test
  void anAsyncMessagesOutputCarriesItsOwnInputsTimestampWhenSentLater() throws Exception {
    List<Envelope> out = run(LaterTask.class);
    assertThat(out).extracting(e -> e.value() + "@" + e.timestamp())
        .containsExactlyInAnyOrder("later a@1000", "later b@2000");
  }
}
