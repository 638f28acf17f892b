package io.millrace.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ComparisonTest {
  private static Outline plan(String store, int tasks, String internalPhysical) {
    return new Outline("wc", "T", tasks,
        List.of(new Outline.Stream(Outline.Role.INPUT, "lines", "kafka", "lines", tasks),
            new Outline.Stream(Outline.Role.INTERNAL, store + "-repartition", "kafka",
                internalPhysical, tasks)),
        List.of(new Outline.Store(store, "rocksdb", "s", "l", "kafka.wc-" + store
            + "-changelog", tasks)),
        List.of(new Outline.Operator("lines", "source", "lines", List.of()),
            new Outline.Operator("lines/map/count:" + store, "count", store, List.of(store))));
  }

  @Test
  void theSamePlanOrphansNothingAndSaysNothing() {
    Comparison c = Comparison.of(plan("counts", 4, "x"), plan("counts", 4, "x"));
    assertThat(c.orphansState()).isFalse();
    assertThat(c.notes()).isEmpty();
  }

  @Test
  void aRenamedStoreIsReportedAsRenamedWithItsChangelogAndItsRepartitionAsGone() {
    Comparison c = Comparison.of(plan("counts", 4, "wc-counts-repartition"),
        plan("totals", 4, "wc-totals-repartition"));
    assertThat(c.orphansState()).isTrue();
    assertThat(c.orphans()).anySatisfy(line -> assertThat(line)
        .contains("store counts (count at lines/map/count:counts) is renamed to totals")
        .contains("kafka.wc-counts-changelog"));
    assertThat(c.orphans()).anySatisfy(line -> assertThat(line)
        .startsWith("internal stream counts-repartition").contains("is gone"));
    assertThat(c.notes()).anySatisfy(line -> assertThat(line).contains("store totals")
        .contains("is new"));
  }

  @Test
  void aChangedPartitionCountOrphansTheStoresAndInternalStreams() {
    Comparison c = Comparison.of(plan("counts", 4, "x"), plan("counts", 8, "x"));
    assertThat(c.orphans()).hasSize(2).anySatisfy(line -> assertThat(line)
        .contains("store counts").contains("change from 4 to 8"))
        .anySatisfy(line -> assertThat(line).contains("internal stream counts-repartition")
            .contains("from 4 to 8"));
  }

  @Test
  void anAddedStatelessOperatorIsANoteOnly() {
    Outline before = plan("counts", 4, "x");
    Outline now = new Outline("wc", "T", 4, before.streams(), before.stores(),
        List.of(before.operators().get(0), new Outline.Operator("lines/filter", "filter", null,
            List.of()), before.operators().get(1)));
    Comparison c = Comparison.of(before, now);
    assertThat(c.orphansState()).isFalse();
    assertThat(c.notes()).containsExactly("operator filter at lines/filter is new");
  }
}
