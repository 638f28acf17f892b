package io.millrace.bench.scaleout;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a child's GC log: the pauses inside a gap, and lines that are not pauses. */
class GcPausesTest {
  private static final List<String> LOG = List.of(
      "[1000ms] Using G1",
      "[2000ms] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 19M->5M(380M) 100.000ms",
      "[3000ms] GC(1) Pause Young (Concurrent Start) (Metadata GC Threshold) 81M->9M(380M) 25.5ms",
      "[3050ms] GC(2) Concurrent Mark Cycle",
      "[3100ms] GC(2) Pause Remark 11M->11M(47M) 20ms",
      "[3200ms] GC(2) Concurrent Mark Cycle 150.860ms",
      "[garbled] GC(3) Pause Young (Normal) 5.0ms",
      "[4000ms] GC(4) Pause Young (Normal) (G1 Evacuation Pause) 19M->5M(380M)");

  @Test
  void countsTheStopTheWorldPausesInsideTheWindowAndOnlyTheirPartInIt() {
    assertThat(GcPauses.within(LOG, 1950, 2000)).as("the last 50 ms of the first").isEqualTo(50);
    assertThat(GcPauses.within(LOG, 1800, 2100)).as("all of the first").isEqualTo(100);
    assertThat(GcPauses.within(LOG, 2950, 3100)).as("young and remark, not the concurrent cycle")
        .isEqualTo(46); // 25.5 rounded with the remark's 20
    assertThat(GcPauses.within(LOG, 3150, 3900)).as("nothing stops there").isZero();
  }

  @Test
  void linesThatAreNotAWholePauseAreSkipped() {
    assertThat(GcPauses.within(LOG, 3900, 4100)).as("no duration, no stamp: not counted")
        .isZero();
    assertThat(GcPauses.within(List.of("", "[ms] Pause 3ms", "[12ms] Pause x.5ms"), 0, 100))
        .isZero();
  }

  @Test
  void aProcessWithoutALogSaysSo(@TempDir Path home) throws Exception {
    assertThat(GcPauses.within(home, 42, 0, 100)).isEqualTo(-1);
    Files.write(home.resolve("gc-42.log"), LOG);
    assertThat(GcPauses.within(home, 42, 1800, 2100)).isEqualTo(100);
    assertThat(GcPauses.option(home)).isEqualTo("-Xlog:gc:file=" + home.resolve("gc-%p.log")
        + ":timemillis");
  }
}
