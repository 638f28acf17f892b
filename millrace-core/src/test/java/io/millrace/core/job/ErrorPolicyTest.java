package io.millrace.core.job;

import static io.millrace.core.job.JobTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.DeadLetter;
import io.millrace.api.Envelope;
import io.millrace.core.loop.TaskFailedException;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every {@code task.error.policy}, for a task that throws and for input that does not parse. */
class ErrorPolicyTest {
  @TempDir Path tmp;

  @BeforeEach
  void reset() {
    JobTestSupport.reset();
  }

  /** good-0000 .. good-0019 with "BAD" lines in place of the given indices. */
  private static List<String> linesWithBadOnes(int... bad) {
    List<String> lines = numbered("good", 20);
    for (int i : bad) {
      lines.set(i, "BAD-" + i);
    }
    return lines;
  }

  /** JSON objects {"n": i}, with non-JSON lines in place of the given indices. */
  private static List<String> jsonWithBadOnes(int... bad) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      lines.add("{\"n\": " + i + "}");
    }
    for (int i : bad) {
      lines.set(i, "not json " + i);
    }
    return lines;
  }

  private static List<Object> jsonNumbers() {
    return allValues().stream().map(v -> ((Map<?, ?>) v).get("n")).collect(Collectors.toList());
  }

  private static List<Object> without(List<String> lines, int... skipped) {
    List<Object> expected = new ArrayList<>(lines);
    for (int i = skipped.length - 1; i >= 0; i--) {
      expected.remove(skipped[i]);
    }
    return expected;
  }

  @Test
  void failStopsTheJobNamingStreamPartitionAndOffsetAndCommitsOnlyWhatCameBefore()
      throws Exception {
    List<String> lines = linesWithBadOnes(12);
    Path file = writeLines(tmp.resolve("in.txt"), lines);
    Map<String, String> config = fileJob(tmp, file, FailingTask.class);
    config.put("task.error.policy", "fail");
    long badOffset = lineOffsets(lines).get(12);

    LocalRunner runner = run(config);

    assertThat(runner.failure()).isInstanceOf(TaskFailedException.class)
        .hasMessageContaining("lines/0 offset " + badOffset)
        .hasMessageContaining("task Partition 0")
        .hasMessageContaining("bad line BAD-12")
        .hasMessageContaining("task.error.policy=fail");
    assertThat(allValues()).isEqualTo(new ArrayList<Object>(lines.subList(0, 12)));
    assertThat(checkpoint(tmp)).as("the offset before the bad message")
        .isEqualTo(Map.of(lines(0), lineOffsets(lines).get(11)));

    // Once the task is fixed, a restart begins with the message that failed.
    JobTestSupport.reset();
    config.put("task.class", RecordingTask.class.getName());
    runOk(config);
    assertThat(allValues()).isEqualTo(new ArrayList<Object>(lines.subList(12, 20)));
  }

  @Test
  void failIsTheDefaultPolicy() throws Exception {
    Path file = writeLines(tmp.resolve("in.txt"), linesWithBadOnes(0));
    LocalRunner runner = run(fileJob(tmp, file, FailingTask.class));
    assertThat(runner.failure()).isInstanceOf(TaskFailedException.class)
        .hasMessageContaining("lines/0 offset 0");
    assertThat(checkpoint(tmp)).as("nothing before the bad message").isEmpty();
  }

  @Test
  void failOnUndeserializableInputNamesStreamPartitionAndOffset() throws Exception {
    List<String> lines = jsonWithBadOnes(7);
    Path file = writeLines(tmp.resolve("in.json"), lines);
    Map<String, String> config = fileJob(tmp, file, RecordingTask.class);
    config.put("streams.lines.value.serde", "json");
    long badOffset = lineOffsets(lines).get(7);

    LocalRunner runner = run(config);

    assertThat(runner.failure()).isInstanceOf(TaskFailedException.class)
        .hasMessageContaining("cannot deserialize")
        .hasMessageContaining("lines/0 offset " + badOffset)
        .hasMessageContaining("not valid JSON");
    assertThat(jsonNumbers()).containsExactly(0, 1, 2, 3, 4, 5, 6);
    assertThat(checkpoint(tmp)).isEqualTo(Map.of(lines(0), lineOffsets(lines).get(6)));
  }

  @Test
  void skipCountsTheMessagesTheTaskThrowsOnAndProcessesTheOthers() throws Exception {
    List<String> lines = linesWithBadOnes(0, 9, 19);
    Path file = writeLines(tmp.resolve("in.txt"), lines);
    Map<String, String> config = fileJob(tmp, file, FailingTask.class);
    config.put("task.error.policy", "skip");

    LocalRunner runner = runOk(config);

    assertThat(allValues()).isEqualTo(without(lines, 0, 9, 19));
    assertThat(counter(runner, "messages-skipped")).isEqualTo(3);
    assertThat(checkpoint(tmp)).as("committed past the skipped messages")
        .isEqualTo(Map.of(lines(0), lineOffsets(lines).get(19)));
  }

  @Test
  void skipCountsUndeserializableInputAndProcessesTheRest() throws Exception {
    List<String> lines = jsonWithBadOnes(3, 4);
    Path file = writeLines(tmp.resolve("in.json"), lines);
    Map<String, String> config = fileJob(tmp, file, RecordingTask.class);
    config.put("streams.lines.value.serde", "json");
    config.put("task.error.policy", "skip");

    LocalRunner runner = runOk(config);

    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      if (i != 3 && i != 4) {
        expected.add(i);
      }
    }
    assertThat(jsonNumbers()).isEqualTo(expected);
    assertThat(counter(runner, "messages-skipped")).isEqualTo(2);
  }

  private Map<String, String> deadLetterJob(Path file, Class<? extends io.millrace.api.StreamTask>
      task, String dlq) {
    Map<String, String> config = fileJob(tmp, file, task);
    config.put("task.error.policy", "dead-letter");
    config.put("task.dead.letter.stream", "dlq");
    config.put("streams.dlq.system", "memory");
    config.put("streams.dlq.physical.name", dlq);
    return config;
  }

  private static List<DeadLetter> deadLetters(String dlq) {
    return MemoryStreams.get(dlq).messages().stream()
        .map(Envelope::value)
        .map(DeadLetter.class::cast)
        .collect(Collectors.toList());
  }

  @Test
  void deadLetterWritesTheFailedMessageWithItsErrorAndGoesOn() throws Exception {
    List<String> lines = linesWithBadOnes(5, 15);
    Path file = writeLines(tmp.resolve("in.txt"), lines);
    String dlq = unique("dlq");

    LocalRunner runner = runOk(deadLetterJob(file, FailingTask.class, dlq));

    assertThat(allValues()).isEqualTo(without(lines, 5, 15));
    List<DeadLetter> dead = deadLetters(dlq);
    assertThat(dead).hasSize(2);
    DeadLetter first = dead.get(0);
    assertThat(first.stream()).isEqualTo("lines");
    assertThat(first.partition()).isZero();
    assertThat(first.offset()).isEqualTo(lineOffsets(lines).get(5));
    assertThat(first.value()).isEqualTo("BAD-5");
    assertThat(first.error()).contains("IllegalStateException").contains("bad line BAD-5");
    assertThat(first.stage()).isEqualTo("process");
    assertThat(dead.get(1).offset()).isEqualTo(lineOffsets(lines).get(15));
    assertThat(counter(runner, "messages-dead-lettered")).isEqualTo(2);
    MemoryStreams.drop(dlq);
  }

  @Test
  void deadLetterWritesUndeserializableInputRawWithTheReadError() throws Exception {
    List<String> lines = jsonWithBadOnes(10);
    Path file = writeLines(tmp.resolve("in.json"), lines);
    String dlq = unique("dlq");
    Map<String, String> config = deadLetterJob(file, RecordingTask.class, dlq);
    config.put("streams.lines.value.serde", "json");

    runOk(config);

    assertThat(jsonNumbers()).hasSize(19).doesNotContain(10);
    List<DeadLetter> dead = deadLetters(dlq);
    assertThat(dead).hasSize(1);
    DeadLetter letter = dead.get(0);
    assertThat(letter.stream()).isEqualTo("lines");
    assertThat(letter.offset()).isEqualTo(lineOffsets(lines).get(10));
    assertThat(letter.value()).isInstanceOf(byte[].class);
    assertThat(new String((byte[]) letter.value(), StandardCharsets.UTF_8)).isEqualTo("not json 10");
    assertThat(letter.error()).contains("not valid JSON").contains("in.json");
    assertThat(letter.stage()).isEqualTo("read");
    MemoryStreams.drop(dlq);
  }
}
