package io.millrace.core.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanFormatTest {
  private static final Outline PLAN = new Outline("views", "io.millrace.dsl.runtime.DslTask", 4,
      List.of(
          new Outline.Stream(Outline.Role.INPUT, "views", "file", "/data/my views.csv", 4),
          new Outline.Stream(Outline.Role.INTERNAL, "counts-repartition", "kafka",
              "views-counts-repartition", 4),
          new Outline.Stream(Outline.Role.OUTPUT, "out", "kafka", "a \"quoted\" = # \\ name\n",
              4)),
      List.of(new Outline.Store("counts", "rocksdb", "io.millrace.core.serde.StringSerde",
              "io.millrace.core.serde.LongSerde", "kafka.views-counts-changelog", 4),
          new Outline.Store("plain", "memory", "a", "b", null, 4)),
      List.of(new Outline.Operator("views", "source", "views", List.of()),
          new Outline.Operator("views/map/windowed-count:counts", "windowed count", "counts",
              List.of("counts")),
          new Outline.Operator("join(views/map,other):j", "windowed join", "j",
              List.of("j-left", "j-right"))));

  @Test
  void aWrittenPlanReadsBackAsTheSamePlan() {
    String text = PlanFormat.write(PLAN);
    assertThat(PlanFormat.read(text, "p.plan")).isEqualTo(PLAN);
    assertThat(PlanFormat.write(PlanFormat.read(text, "p.plan"))).isEqualTo(text);
    assertThat(text).contains("store counts factory=rocksdb")
        .contains("operator views/map/windowed-count:counts kind=\"windowed count\"");
  }

  @Test
  void aLineThatCannotBeReadIsNamedWithTheFileAndItsNumber() {
    String text = PlanFormat.write(PLAN).replace("partitions=4\nstore plain",
        "partitions=four\nstore plain");
    int line = lineOf(text, "partitions=four");
    assertThatThrownBy(() -> PlanFormat.read(text, "old.plan"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("plan file old.plan line " + line + ": ")
        .hasMessageContaining("partitions must be a whole number")
        .hasMessageContaining("'four'");
  }

  @Test
  void unknownLinesKeysAndUnclosedQuotesAreRefusedByLine() {
    assertThatThrownBy(() -> PlanFormat.read("millrace-plan 1\njob a\nstorage x\n", "f"))
        .hasMessageContaining("plan file f line 3: unknown line 'storage'");
    assertThatThrownBy(() -> PlanFormat.read("millrace-plan 1\ninput a system=m physical=p "
        + "partitions=1 colour=red\n", "f"))
        .hasMessageContaining("plan file f line 2: unknown key 'colour'");
    assertThatThrownBy(() -> PlanFormat.read("millrace-plan 1\ninput a system=\"m\n", "f"))
        .hasMessageContaining("plan file f line 2: a quoted value has no closing quote");
    assertThatThrownBy(() -> PlanFormat.read("millrace-plan 1\ninput a system=m\n", "f"))
        .hasMessageContaining("plan file f line 2: missing physical=");
  }

  @Test
  void aFileThatIsNoPlanSaysSoAtItsFirstLine() {
    assertThatThrownBy(() -> PlanFormat.read("# a comment\njob.name=x\n", "job.properties"))
        .hasMessageContaining("plan file job.properties line 2: this is not a plan file");
    assertThatThrownBy(() -> PlanFormat.read("", "empty.plan"))
        .hasMessageContaining("plan file empty.plan is empty");
    assertThatThrownBy(() -> PlanFormat.read("millrace-plan 1\njob a\ntasks 1\n", "cut.plan"))
        .hasMessageContaining("plan file cut.plan lacks its task line");
  }

  private static int lineOf(String text, String part) {
    String[] lines = text.split("\n");
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].contains(part)) {
        return i + 1;
      }
    }
    throw new AssertionError(part);
  }
}
