package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.store.KeyValue;
import io.millrace.core.embed.Millrace;
import io.millrace.core.embed.RunningJob;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import io.millrace.dsl.RegroupedTablesTest;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.StreamJoined;
import io.millrace.dsl.Stored;
import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.window.JoinWindows;
import io.millrace.dsl.window.Windows;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task whose local files are gone restores its session and join stores from their changelogs
 * and goes on where it stopped: its open sessions (an index on the heap, rebuilt from the store)
 * take their keys' next records, and buffered join records (keys, then time, with a time index)
 * meet their matches and expire.
 */
class StoresRestoredFromChangelogTest {
  private static final AtomicInteger UNIQUE = new AtomicInteger();

  @TempDir Path tmp;

  /** Views per user per session (a gap of 10 s, no grace), as "user@start-end". */
  public static final class Sessions implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.session(Duration.ofSeconds(10)).grace(Duration.ZERO))
          .count(Stored.as("sessions"))
          .map((w, count) -> new KeyValue<>(w.key() + "@" + w.start() + "-" + w.end(),
              Long.toString(count)))
          .to("out");
    }
  }

  /** Views left-joined with clicks of the same user within 5 s, no grace. */
  public static final class ViewsAndClicks implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").leftJoin(graph.<String, String>stream("clicks"),
              (v, c) -> v + "+" + c,
              JoinWindows.of(Duration.ofSeconds(5)).grace(Duration.ZERO),
              StreamJoined.<String, String, String>as("views-clicks")
                  .withValueSerdes(Serdes.string(), Serdes.string()))
          .to("out");
    }
  }

  private Map<String, String> job(String name, Class<? extends StreamApplication> app,
      String... streams) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", name);
    config.put("app.class", app.getName());
    config.put("job.state.dir", tmp.resolve(name).toString());
    config.put("dsl.changelog.system", "memory");
    for (String stream : streams) {
      config.put("streams." + stream + ".system", "memory");
      config.put("streams." + stream + ".physical.name", name + "-" + stream);
    }
    config.put("streams.out.partitions", "1");
    return config;
  }

  private static List<String> out(String name) {
    MemoryStream out = MemoryStreams.get(name + "-out");
    List<String> lines = new ArrayList<>();
    if (out != null) {
      for (Envelope e : out.messages(0)) {
        lines.add(e.key() + "=" + e.value());
      }
    }
    return lines;
  }

  /** Deletes the job's local store files (not its checkpoints): the next start restores them. */
  private static void deleteLocalStores(Path stateDir) throws IOException {
    Path dir = stateDir.resolve("stores");
    assertThat(dir).isDirectory();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    assertThat(dir).doesNotExist();
  }

  @Test
  void openSessionsAreFoundAgainAfterARestoreFromTheChangelog() throws Exception {
    String name = "sessions-restored-" + UNIQUE.incrementAndGet();
    MemoryStream views = MemoryStreams.create(name + "-views", 1);
    Map<String, String> config = job(name, Sessions.class, "views", "out");
    views.append(0, "a", "/", 0, Headers.EMPTY);
    views.append(0, "b", "/", 15_000, Headers.EMPTY);
    views.append(0, "c", "/", 20_000, Headers.EMPTY); // closes a's session, not b's
    try (RunningJob job = Millrace.start(config)) {
      Await.until(Await.DEADLINE, "a's session closed", () -> out(name).size() >= 1);
      assertThat(job.failure()).isEmpty();
    } // stopped: committed, b's and c's sessions in the changelog
    deleteLocalStores(tmp.resolve(name));

    views.append(0, "b", "/", 24_000, Headers.EMPTY); // within the gap of b's session
    views.append(0, "a", "/", 5_000, Headers.EMPTY); // late before the restore: late after it
    views.append(0, "z", "/", 100_000, Headers.EMPTY); // closes b's and c's
    try (RunningJob job = Millrace.start(config)) {
      Await.until(Await.DEADLINE, "b's and c's sessions closed", () -> out(name).size() >= 3);
      assertThat(job.failure()).isEmpty();
    }
    assertThat(out(name)).containsExactly("a@0-0=1", "c@20000-20000=1", "b@15000-24000=2");
  }

  @Test
  void bufferedJoinRecordsMeetTheirMatchesAndExpireAfterARestoreFromTheChangelog()
      throws Exception {
    String name = "join-restored-" + UNIQUE.incrementAndGet();
    MemoryStream views = MemoryStreams.create(name + "-views", 1);
    MemoryStream clicks = MemoryStreams.create(name + "-clicks", 1);
    Map<String, String> config = job(name, ViewsAndClicks.class, "views", "clicks", "out");
    config.put("dsl.watermark.idle.ms", "0"); // a stream with nothing to read holds nothing back
    views.append(0, "x", "v0", 1_000, Headers.EMPTY);
    views.append(0, "u", "v1", 10_000, Headers.EMPTY);
    views.append(0, "w", "v2", 11_000, Headers.EMPTY);
    clicks.append(0, "x", "c0", 1_000, Headers.EMPTY); // x's match: out at once
    try (RunningJob job = Millrace.start(config)) {
      Await.until(Await.DEADLINE, "x joined", () -> out(name).size() >= 1);
      assertThat(job.failure()).isEmpty();
    }
    deleteLocalStores(tmp.resolve(name));

    clicks.append(0, "u", "c1", 14_000, Headers.EMPTY); // u's view waited in its store
    views.append(0, "z", "end", 60_000, Headers.EMPTY); // w's view expires unmatched
    clicks.append(0, "z", "end", 60_000, Headers.EMPTY);
    try (RunningJob job = Millrace.start(config)) {
      Await.until(Await.DEADLINE, "w's view expired", () -> out(name).size() >= 4);
      assertThat(job.failure()).isEmpty();
    }
    assertThat(out(name)).containsExactly("x=v0+c0", "u=v1+c1", "z=end+end", "w=v2+null");
  }

  @Test
  void aRegroupedTablesRowsAndGroupsAreRestoredFromTheirChangelogsAcrossTwoTasks()
      throws Exception {
    String name = "regrouped-restored-" + UNIQUE.incrementAndGet();
    MemoryStream users = MemoryStreams.create(name + "-users", 2);
    Map<String, String> config = job(name, RegroupedTablesTest.CountryStats.class, "users",
        "counts", "sums");
    config.remove("streams.out.partitions");
    config.put("streams.counts.partitions", "1");
    config.put("streams.sums.partitions", "1");
    Random random = new Random(7);
    Map<String, String> rows = new HashMap<>();
    for (int phase = 0; phase < 2; phase++) {
      for (int i = 0; i < 400; i++) {
        String user = "u" + random.nextInt(30);
        String line = random.nextInt(8) == 0 ? null
            : "c" + random.nextInt(4) + "," + random.nextInt(100);
        users.append(Math.floorMod(user.hashCode(), 2), user, line, phase * 1_000 + i,
            Headers.EMPTY);
        if (line == null) {
          rows.remove(user);
        } else {
          rows.put(user, line);
        }
      }
      Map<String, String> counts = new TreeMap<>();
      Map<String, String> sums = new TreeMap<>();
      for (String line : rows.values()) {
        String[] cs = line.split(",");
        counts.merge(cs[0], "1", (a, b) -> Long.toString(Long.parseLong(a) + 1));
        sums.merge(cs[0], cs[1], (a, b) -> Long.toString(Long.parseLong(a) + Long.parseLong(b)));
      }
      try (RunningJob job = Millrace.start(config)) {
        Await.until(Await.DEADLINE, "every country's count and sum as the rows say",
            () -> occupied(name).equals(List.of(counts, sums)) || job.failure().isPresent());
        assertThat(job.failure()).isEmpty();
      } // stopped: committed, rows and groups in their changelogs
      deleteLocalStores(tmp.resolve(name));
    }
  }

  /** Each key's last value in a stream's partition 0, as text. */
  private static Map<String, String> last(String stream) {
    Map<String, String> last = new TreeMap<>();
    MemoryStream out = MemoryStreams.get(stream);
    if (out != null) {
      for (Envelope e : out.messages(0)) {
        last.put(String.valueOf(e.key()), String.valueOf(e.value()));
      }
    }
    return last;
  }

  /** The last count and sum of each country some row is in (a count of 0: none is). */
  private static List<Map<String, String>> occupied(String name) {
    Map<String, String> counts = last(name + "-counts");
    counts.values().removeIf("0"::equals);
    Map<String, String> sums = last(name + "-sums");
    sums.keySet().retainAll(counts.keySet());
    return List.of(counts, sums);
  }
}
