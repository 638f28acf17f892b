package io.millrace.dsl.translate;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.store.KeyValue;
import io.millrace.core.cli.Main;
import io.millrace.dsl.Grouped;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.Table;
import io.millrace.dsl.serde.StringSerde;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code millrace plan} of DSL jobs: operators with their names, and a rename caught (a count's,
 * a re-grouped table's count's).
 */
class PlanCommandTest {
  @TempDir Path tmp;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** Words counted by first letter into "counts": a re-key, so a repartition. */
  public static final class Counts implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("lines")
          .map((k, v) -> new KeyValue<>(v.substring(0, 1), v))
          .groupByKey()
          .count(Stored.as("counts"))
          .to("out");
    }
  }

  /** {@link Counts} with its count renamed to "totals". */
  public static final class Totals implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("lines")
          .map((k, v) -> new KeyValue<>(v.substring(0, 1), v))
          .groupByKey()
          .count(Stored.as("totals"))
          .to("out");
    }
  }

  /** {@link Counts} with a filter added before the count: no state moves. */
  public static final class FilteredCounts implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("lines")
          .filter((k, v) -> !v.isEmpty())
          .map((k, v) -> new KeyValue<>(v.substring(0, 1), v))
          .groupByKey()
          .count(Stored.as("counts"))
          .to("out");
    }
  }

  /** Each letter's last word, a table re-grouped by the word's length and counted: "lengths". */
  public static final class Lengths implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      lastWords(graph).groupBy((letter, word) -> new KeyValue<>(word.length() + "", letter),
              Grouped.with(new StringSerde(), new StringSerde()))
          .count(Stored.as("lengths"))
          .toStream().to("out");
    }
  }

  /** {@link Lengths} with its count renamed to "sizes". */
  public static final class Sizes implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      lastWords(graph).groupBy((letter, word) -> new KeyValue<>(word.length() + "", letter),
              Grouped.with(new StringSerde(), new StringSerde()))
          .count(Stored.as("sizes"))
          .toStream().to("out");
    }
  }

  /** Each letter's last word, a table in "last-words". */
  static Table<String, String> lastWords(StreamGraph graph) {
    return graph.<String, String>stream("lines")
        .map((k, v) -> new KeyValue<>(v.substring(0, 1), v))
        .toTable(Stored.<String, String>as("last-words").withValueSerde(new StringSerde()));
  }

  @BeforeEach
  void input() throws Exception {
    Files.writeString(tmp.resolve("lines.txt"), "apple\nbanana\n");
  }

  private Path job(Class<? extends StreamApplication> app) throws Exception {
    Path file = tmp.resolve(app.getSimpleName() + ".properties");
    Files.writeString(file, String.join("\n",
        "job.name=letters",
        "app.class=" + app.getName(),
        "streams.lines.system=file",
        "streams.lines.physical.name=" + tmp.resolve("lines.txt"),
        "streams.out.system=file",
        "streams.out.physical.name=" + tmp.resolve("out"),
        "job.state.dir=" + tmp.resolve("state"), ""));
    return file;
  }

  private int plan(String... args) {
    out.reset();
    err.reset();
    String[] all = new String[args.length + 1];
    all[0] = "plan";
    System.arraycopy(args, 0, all, 1, args.length);
    return Main.run(all, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aDslJobsPlanShowsItsOperatorsWithTheirNamesItsStoreAndItsRepartition() throws Exception {
    assertThat(plan(job(Counts.class).toString())).isZero();
    assertThat(out())
        .contains("task io.millrace.dsl.runtime.DslTask")
        .contains("internal counts-repartition system=memory physical=letters-counts-repartition"
            + " partitions=1")
        .contains("store counts factory=rocksdb")
        .contains("operator lines kind=source name=lines")
        .contains("operator lines/map kind=map\n")
        .contains("kind=count name=counts stores=counts");
    assertThat(tmp.resolve("state")).doesNotExist();
  }

  @Test
  void aRenamedOperatorIsReportedByPlanAgainstAndExitsFour() throws Exception {
    assertThat(plan(job(Counts.class).toString())).isZero();
    Path saved = tmp.resolve("counts.plan");
    Files.writeString(saved, out()); // redirected output is a plan file
    assertThat(plan("--against", saved.toString(), job(Totals.class).toString())).isEqualTo(4);
    assertThat(out())
        .contains("orphaned: store counts (count at counts-repartition/"
            + "count:counts) is renamed to totals, which starts empty: its state (its local "
            + "files) is left behind")
        .contains("orphaned: internal stream counts-repartition (memory "
            + "letters-counts-repartition) is gone");
  }

  @Test
  void aRegroupedTablesCountShowsItsRepartitionAndItsRenameIsReported() throws Exception {
    assertThat(plan(job(Lengths.class).toString())).isZero();
    assertThat(out())
        .contains("internal lengths-repartition system=memory "
            + "physical=letters-lengths-repartition")
        .contains("/table:last-words/groupBy:lengths kind=\"table groupBy\"\n")
        .contains("kind=\"table count\" name=lengths stores=lengths");
    Path saved = tmp.resolve("lengths.plan");
    Files.writeString(saved, out());
    assertThat(plan("--against", saved.toString(), job(Sizes.class).toString())).isEqualTo(4);
    assertThat(out())
        .contains("orphaned: store lengths (table count at lengths-repartition/"
            + "table-count:lengths) is renamed to sizes")
        .contains("orphaned: internal stream lengths-repartition (memory "
            + "letters-lengths-repartition) is gone")
        .doesNotContain("orphaned: store last-words");
  }

  @Test
  void aFilterAddedBeforeAStatefulOperatorOrphansNothing() throws Exception {
    Path saved = tmp.resolve("counts.plan");
    assertThat(plan("--out", saved.toString(), job(Counts.class).toString())).isZero();
    assertThat(plan("--against", saved.toString(), job(FilteredCounts.class).toString()))
        .isZero();
    assertThat(out()).doesNotContain("orphaned:").contains("no state would be orphaned")
        .contains("note: operator filter at lines/filter is new");
  }
}
