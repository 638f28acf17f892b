package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Envelope;
import io.millrace.api.config.ConfigException;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.samza.application.StreamApplication;
import org.apache.samza.application.TaskApplication;
import org.apache.samza.application.descriptors.StreamApplicationDescriptor;
import org.apache.samza.application.descriptors.TaskApplicationDescriptor;
import org.apache.samza.serializers.KVSerde;
import org.apache.samza.serializers.StringSerde;
import org.apache.samza.system.OutgoingMessageEnvelope;
import org.apache.samza.system.SystemStream;
import org.apache.samza.system.descriptors.GenericSystemDescriptor;
import org.apache.samza.task.StreamTaskFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A Samza TaskApplication (app.class) and its descriptors. */
class SamzaTaskApplicationTest {
  @TempDir Path state;

  /** Reads "key=value" lines' keys and values through its serdes and sends them upper-cased. */
  public static final class UpperApp implements TaskApplication {
    @Override
    public void describe(TaskApplicationDescriptor app) {
      String in = app.getConfig().get("upper.input");
      String out = app.getConfig().get("upper.output");
      GenericSystemDescriptor mem =
          new GenericSystemDescriptor("mem", SamzaTestJobs.MEMORY_FACTORY)
              // the test writes its input first; Samza starts at upcoming by default
              .withDefaultStreamOffsetDefault(
                  org.apache.samza.system.SystemStreamMetadata.OffsetType.OLDEST);
      app.withDefaultSystem(mem);
      app.withInputStream(mem.getInputDescriptor(in,
          KVSerde.of(new StringSerde(), new StringSerde())));
      app.withOutputStream(mem.getOutputDescriptor(out, new StringSerde()));
      app.withTaskFactory((StreamTaskFactory) () -> (envelope, collector, coordinator) ->
          collector.send(new OutgoingMessageEnvelope(new SystemStream("mem", out),
              envelope.getKey() + "=" + ((String) envelope.getMessage()).toUpperCase())));
    }
  }

  /** Samza's high-level API. */
  public static final class HighLevelApp implements StreamApplication {
    @Override
    public void describe(StreamApplicationDescriptor app) {}
  }

  @Test
  void aTaskApplicationsDescriptorsGiveItsStreamsSerdesAndTaskFactory() throws Exception {
    String in = SamzaTestJobs.unique("in");
    String out = SamzaTestJobs.unique("out");
    MemoryStream input = SamzaTestJobs.input(in, 1);
    input.append(0, "k".getBytes(StandardCharsets.UTF_8), "quiet".getBytes(StandardCharsets.UTF_8));
    input.seal();
    Map<String, String> config = new HashMap<>();
    config.put("app.name", SamzaTestJobs.unique("upper"));
    config.put("app.class", UpperApp.class.getName());
    config.put("upper.input", in);
    config.put("upper.output", out);
    config.put("job.state.dir", state.toString());
    SamzaTestJobs.runToEnd(config);

    List<Object> sent = new ArrayList<>();
    for (Envelope e : MemoryStreams.get(out).messages()) {
      sent.add(new String((byte[]) e.value(), StandardCharsets.UTF_8));
    }
    assertThat(sent).containsExactly("k=QUIET");
  }

  @Test
  void aStreamApplicationIsRefusedNamingTheKey() throws Exception {
    Map<String, String> config = new HashMap<>();
    config.put("app.name", "high-level");
    config.put("app.class", HighLevelApp.class.getName());
    assertThatThrownBy(() -> SamzaTestJobs.start(config)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("app.class").hasMessageContaining(HighLevelApp.class.getName())
        .hasMessageContaining("StreamApplication is not supported");
  }
}
