package io.millrace.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskCoordinator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A task that writes a stream and reads it back (a repartition, {@code streams.<id>.intermediate})
 * gets what it sent there piped back in order, and its inputs end when the others have.
 */
class IntermediateStreamDriverTest {
  /** Re-keys "in" by value into "mid"; what comes back from "mid" goes to "out". */
  public static final class RekeyTask implements StreamTask, EndOfStreamListener {
    private final List<Object> back = new ArrayList<>();

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      if (envelope.stream().equals("in")) {
        collector.send("mid", envelope.value(), envelope.key());
      } else {
        back.add(envelope.key());
        collector.send("out", envelope.key(), envelope.value());
      }
    }

    @Override
    public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
      collector.send("out", "end", back.size());
    }
  }

  @Test
  void whatTheTaskSendsToAnIntermediateStreamComesBackInOrderAndEndsWithTheOtherInputs() {
    try (TaskTestDriver driver = TaskTestDriver.forTask(RekeyTask.class)
        .input("in", "mid").output("mid", "out")
        .set("streams.mid.intermediate", "true").build()) {
      driver.pipe("in", "k1", "a", 10);
      driver.pipe("in", "k2", "b", 20);
      assertThat(driver.outputs("out")).extracting(Output::key, Output::value, Output::timestamp)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("a", "k1", 10L),
              org.assertj.core.groups.Tuple.tuple("b", "k2", 20L));
      driver.clearOutputs();
      driver.pipe("in", "k3", "c", 30);
      driver.endOfStream("in");
      assertThat(driver.outputs("out")).extracting(Output::key, Output::value)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("c", "k3"),
              org.assertj.core.groups.Tuple.tuple("end", 3));
    }
  }
}
