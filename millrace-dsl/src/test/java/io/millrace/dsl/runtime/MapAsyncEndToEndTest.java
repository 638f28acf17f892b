package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.DeadLetter;
import io.millrace.api.Envelope;
import io.millrace.core.embed.Millrace;
import io.millrace.core.embed.RunningJob;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mapAsync} through the real run loop (its async dispatcher bounds the calls and keeps
 * order per key): a service whose calls complete out of order on four threads, checked against a
 * plain-Java model of what each key's records must give, in order, and of what must fail.
 */
class MapAsyncEndToEndTest {
  private static final int PARTITIONS = 4;
  private static final int BOUND = 8;
  static volatile Service service;

  /** A remote service: each call completes on one of its threads after a random short delay. */
  static final class Service implements AutoCloseable {
    final ScheduledExecutorService threads = Executors.newScheduledThreadPool(4);
    final AtomicInteger[] inFlight = new AtomicInteger[PARTITIONS];
    final AtomicLongArray most = new AtomicLongArray(PARTITIONS);
    final Set<String> busy = ConcurrentHashMap.newKeySet();
    final List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
    final AtomicLong started = new AtomicLong();
    final AtomicLong lastDone = new AtomicLong(-1);
    final AtomicInteger outOfOrder = new AtomicInteger();

    Service() {
      for (int p = 0; p < PARTITIONS; p++) {
        inFlight[p] = new AtomicInteger();
      }
    }

    CompletionStage<String> call(String key, int value) {
      int p = key.charAt(1) - '0'; // keys are p<partition>-k<n>
      int now = inFlight[p].incrementAndGet();
      most.accumulateAndGet(p, now, Math::max);
      if (!busy.add(key)) {
        overlaps.add(key + " had two calls at once (value " + value + ")");
      }
      long seq = started.getAndIncrement();
      CompletableFuture<String> result = new CompletableFuture<>();
      threads.schedule(() -> {
        busy.remove(key);
        inFlight[p].decrementAndGet();
        if (lastDone.getAndAccumulate(seq, Math::max) > seq) {
          outOfOrder.incrementAndGet();
        }
        if (value % 97 == 0) {
          result.completeExceptionally(new IllegalStateException("service refused " + value));
        } else {
          result.complete(key + ":" + value * 10);
        }
      }, ThreadLocalRandom.current().nextInt(500), TimeUnit.MICROSECONDS);
      return result;
    }

    @Override
    public void close() {
      threads.shutdownNow();
    }
  }

  /** One look-up per record, its answer written out. */
  public static final class LookUps implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, Integer>stream("in")
          .mapAsync((k, v) -> service.call(k, v), BOUND)
          .to("out");
    }
  }

  @TempDir Path tmp;

  @Test
  void callsStayUnderTheBoundOneAtATimePerKeyAndEachKeysResultsComeOutInOrder()
      throws Exception {
    String name = "lookups-" + System.nanoTime();
    MemoryStream in = MemoryStreams.create(name + "-in", PARTITIONS);
    Random random = new Random(5);
    Map<String, List<Object>> model = new TreeMap<>();
    List<Integer> refused = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      int p = random.nextInt(PARTITIONS);
      String key = "p" + p + "-k" + random.nextInt(5);
      in.append(p, key, i);
      if (i % 97 == 0) {
        refused.add(i);
      } else {
        model.computeIfAbsent(key, k -> new ArrayList<>()).add(key + ":" + i * 10);
      }
    }
    in.seal();
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", name);
    config.put("app.class", LookUps.class.getName());
    config.put("job.state.dir", tmp.toString());
    for (String stream : List.of("in", "out", "dead")) {
      config.put("streams." + stream + ".system", "memory");
      config.put("streams." + stream + ".physical.name", name + "-" + stream);
    }
    config.put("streams.out.partitions", "1"); // one log: each key's order is seen as sent
    config.put("task.error.policy", "dead-letter");
    config.put("task.dead.letter.stream", "dead");
    try (Service s = new Service()) {
      service = s;
      try (RunningJob job = Millrace.start(config)) {
        job.join();
        assertThat(job.failure()).isEmpty();
      }
      Map<String, List<Object>> out = new TreeMap<>();
      for (Envelope e : MemoryStreams.get(name + "-out").messages()) {
        out.computeIfAbsent((String) e.key(), k -> new ArrayList<>()).add(e.value());
      }
      assertThat(out).as("each key's results, in the order its records came").isEqualTo(model);
      assertThat(s.overlaps).as("one call at a time per key").isEmpty();
      for (int p = 0; p < PARTITIONS; p++) {
        assertThat(s.most.get(p)).as("calls in flight in task " + p).isBetween(1L, (long) BOUND);
      }
      assertThat(s.most.get(0) + s.most.get(1) + s.most.get(2) + s.most.get(3))
          .as("calls overlapped").isGreaterThan(PARTITIONS);
      assertThat(s.outOfOrder.get()).as("calls completed out of order").isPositive();
      List<DeadLetter> dead = MemoryStreams.get(name + "-dead").messages().stream()
          .map(e -> (DeadLetter) e.value()).toList();
      assertThat(dead).extracting(DeadLetter::value).containsExactlyInAnyOrderElementsOf(
          refused.stream().map(v -> (Object) v).toList());
      for (DeadLetter letter : dead) {
        assertThat(letter.error()).contains("mapAsync at in/mapAsync: failed on record (key "
            + letter.key() + ", value " + letter.value() + ")")
            .contains("service refused " + letter.value());
      }
    } finally {
      service = null;
    }
  }
}
