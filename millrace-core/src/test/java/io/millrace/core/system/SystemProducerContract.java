package io.millrace.core.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.millrace.api.Headers;
import io.millrace.api.Serde;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.testing.TestSystemContext;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemContext;
import io.millrace.spi.system.SystemProducer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link SystemProducer} must do, run against each implementation (a subclass per
 * system: memory, file, Kafka), as {@link SystemConsumerContract} does for consumers. Keys and
 * values are strings; a subclass reads back what its system holds, as a reader in another process
 * would.
 *
 * <p>What it proves: once {@link SystemProducer#flush} returns, every message sent is there, in
 * the order sent within each partition, under the output its index names; a key sent without a
 * partition always lands in the same one, from any producer (a restart); {@link
 * SystemProducer#stop} flushes; a second producer of the same outputs adds to what the first wrote;
 * {@link SystemProducer#lastOffset} names the last message sent to a partition (where the system
 * has offsets); headers and timestamps come back as sent (where the system carries them). Bad
 * input: a value its serde cannot serialize throws from its own send and leaves the others; a
 * partition the output does not have and an index never registered are refused by the send.
 */
public abstract class SystemProducerContract {
  private final List<SystemProducer> started = new ArrayList<>();

  /** A message as the system holds it: offset (-1 if the system has none), key, value, and more. */
  public record Written(long offset, String key, String value, long timestamp,
      Headers headers) {}

  /** A new, empty output stream of {@code partitions} partitions, with these serdes. */
  protected abstract StreamSpec output(String name, int partitions, Serde<?> keySerde,
      Serde<?> valueSerde) throws Exception;

  /** A new producer of the system, not registered nor started. */
  protected abstract SystemProducer newProducer();

  /** What a partition of an output holds now, durably, in order. */
  protected abstract List<Written> read(StreamSpec stream, int partition) throws Exception;

  /** Whether the system gives messages offsets ({@link SystemProducer#lastOffset} then knows). */
  protected abstract boolean hasOffsets();

  /** Whether the system carries headers and timestamps with a message. */
  protected abstract boolean carriesHeadersAndTimestamps();

  /** Whether the system serializes what is sent (in {@code send}) with the stream's serdes. */
  protected abstract boolean serializes();

  /** A context for the system's parts, with the system's own keys. */
  protected static SystemContext context(String system, Map<String, String> systemConfig) {
    return new TestSystemContext(system, "producer-contract", 0, systemConfig, Map.of(),
        new io.millrace.core.metrics.DefaultMetricsRegistry(false));
  }

  @AfterEach
  void stopProducers() {
    for (SystemProducer producer : started) {
      producer.stop();
    }
    started.clear();
  }

  private StreamSpec output(String name, int partitions) throws Exception {
    return output(name, partitions, new StringSerde(), new StringSerde());
  }

  /** A producer with {@code outputs} registered at indices 0, 1, ..., started. */
  private SystemProducer start(StreamSpec... outputs) {
    SystemProducer producer = newProducer();
    for (int i = 0; i < outputs.length; i++) {
      producer.register(i, outputs[i], partitionsOf(outputs[i]));
    }
    producer.start();
    started.add(producer);
    return producer;
  }

  private final Map<String, Integer> partitionCounts = new HashMap<>();

  private StreamSpec counted(StreamSpec stream, int partitions) {
    partitionCounts.put(stream.id(), partitions);
    return stream;
  }

  private int partitionsOf(StreamSpec stream) {
    return partitionCounts.get(stream.id());
  }

  private StreamSpec newOutput(String name, int partitions) throws Exception {
    return counted(output(name, partitions), partitions);
  }

  private List<String> values(StreamSpec stream, int partition) throws Exception {
    List<String> values = new ArrayList<>();
    for (Written w : read(stream, partition)) {
      values.add(w.value());
    }
    return values;
  }

  @Test
  void flushedSendsAreReadableInTheOrderSentInEachPartition() throws Exception {
    StreamSpec out = newOutput("contract-order", 3);
    SystemProducer producer = start(out);
    Map<Integer, List<String>> sent = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      int p = (i * 7) % 3;
      String value = "m" + i;
      producer.send(0, p, "k" + i, value, -1);
      sent.computeIfAbsent(p, x -> new ArrayList<>()).add(value);
    }
    producer.flush();
    for (int p = 0; p < 3; p++) {
      assertThat(values(out, p)).as("partition %d", p).isEqualTo(sent.get(p));
    }
    List<Written> first = read(out, 1);
    assertThat(first.get(0).key()).isEqualTo("k1");
  }

  @Test
  void eachIndexWritesToItsOwnOutput() throws Exception {
    StreamSpec a = newOutput("contract-index-a", 1);
    StreamSpec b = newOutput("contract-index-b", 2);
    SystemProducer producer = newProducer();
    // Indices need not be dense from 0 in the order registered.
    producer.register(4, a, 1);
    producer.register(1, b, 2);
    producer.start();
    started.add(producer);
    producer.send(4, 0, null, "to-a", -1);
    producer.send(1, 1, null, "to-b", -1);
    producer.send(4, 0, null, "to-a-again", -1);
    producer.flush();
    assertThat(values(a, 0)).containsExactly("to-a", "to-a-again");
    assertThat(values(b, 0)).isEmpty();
    assertThat(values(b, 1)).containsExactly("to-b");
  }

  @Test
  void aKeySentWithoutAPartitionAlwaysLandsInOnePartitionFromAnyProducer() throws Exception {
    StreamSpec out = newOutput("contract-keys", 4);
    SystemProducer first = start(out);
    for (int round = 0; round < 3; round++) {
      for (int k = 0; k < 20; k++) {
        first.send(0, -1, "key-" + k, "key-" + k + "/" + round, -1);
      }
    }
    first.flush();
    first.stop();
    started.remove(first);
    // A restart: another producer sends the same keys again.
    SystemProducer second = start(out);
    for (int k = 0; k < 20; k++) {
      second.send(0, -1, "key-" + k, "key-" + k + "/3", -1);
    }
    second.flush();

    Map<String, Integer> partitionOfKey = new HashMap<>();
    Map<String, List<String>> valuesOfKey = new HashMap<>();
    int total = 0;
    for (int p = 0; p < 4; p++) {
      for (Written w : read(out, p)) {
        total++;
        Integer before = partitionOfKey.putIfAbsent(w.key(), p);
        assertThat(before == null || before == p).as("key %s in partitions %s and %s", w.key(),
            before, p).isTrue();
        valuesOfKey.computeIfAbsent(w.key(), k -> new ArrayList<>()).add(w.value());
      }
    }
    assertThat(total).isEqualTo(80);
    assertThat(partitionOfKey).hasSize(20);
    assertThat(new HashSet<>(partitionOfKey.values())).as("20 keys spread over 4 partitions")
        .hasSizeGreaterThan(1);
    for (int k = 0; k < 20; k++) {
      String key = "key-" + k;
      assertThat(valuesOfKey.get(key)).as("key %s in order", key)
          .containsExactly(key + "/0", key + "/1", key + "/2", key + "/3");
    }
  }

  @Test
  void messagesWithoutKeyOrPartitionAreAllWritten() throws Exception {
    StreamSpec out = newOutput("contract-nokey", 3);
    SystemProducer producer = start(out);
    Set<String> sent = new HashSet<>();
    for (int i = 0; i < 60; i++) {
      producer.send(0, -1, null, "v" + i, -1);
      sent.add("v" + i);
    }
    producer.flush();
    List<String> written = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      written.addAll(values(out, p));
    }
    assertThat(written).hasSize(60).containsExactlyInAnyOrderElementsOf(sent);
  }

  @Test
  void stopFlushesWhatWasSent() throws Exception {
    StreamSpec out = newOutput("contract-stop", 2);
    SystemProducer producer = start(out);
    for (int i = 0; i < 50; i++) {
      producer.send(0, i % 2, null, "v" + i, -1);
    }
    producer.stop(); // no flush before it
    started.remove(producer);
    assertThat(values(out, 0)).hasSize(25).startsWith("v0", "v2").endsWith("v48");
    assertThat(values(out, 1)).hasSize(25).startsWith("v1", "v3").endsWith("v49");
  }

  @Test
  void aSecondProducerAddsToWhatTheFirstWrote() throws Exception {
    StreamSpec out = newOutput("contract-append", 1);
    SystemProducer first = start(out);
    first.send(0, 0, null, "first-0", -1);
    first.send(0, 0, null, "first-1", -1);
    first.flush();
    first.stop();
    started.remove(first);

    SystemProducer second = start(out);
    second.send(0, 0, null, "second-0", -1);
    second.flush();
    assertThat(values(out, 0)).containsExactly("first-0", "first-1", "second-0");
  }

  @Test
  void flushWithNothingSentAndFlushTwiceChangeNothing() throws Exception {
    StreamSpec out = newOutput("contract-idle", 1);
    SystemProducer producer = start(out);
    producer.flush();
    producer.send(0, 0, null, "only", -1);
    producer.flush();
    producer.flush();
    assertThat(values(out, 0)).containsExactly("only");
  }

  @Test
  void lastOffsetAfterFlushIsTheOffsetOfTheLastMessageSentToThePartition() throws Exception {
    StreamSpec out = newOutput("contract-last", 3);
    StreamSpec other = newOutput("contract-last-other", 1);
    SystemProducer producer = start(out, other);
    for (int i = 0; i < 5; i++) {
      producer.send(0, 0, null, "p0-" + i, -1);
    }
    for (int i = 0; i < 3; i++) {
      producer.send(0, 2, null, "p2-" + i, -1);
    }
    producer.send(1, 0, null, "other", -1);
    producer.flush();

    if (!hasOffsets()) {
      assertThat(producer.lastOffset(0, 0)).as("a system without offsets").isEqualTo(-1);
      assertThat(producer.lastOffset(0, 2)).as("a system without offsets").isEqualTo(-1);
      return;
    }
    List<Written> p0 = read(out, 0);
    List<Written> p2 = read(out, 2);
    assertThat(producer.lastOffset(0, 0)).isEqualTo(p0.get(p0.size() - 1).offset());
    assertThat(producer.lastOffset(0, 2)).isEqualTo(p2.get(p2.size() - 1).offset());
    assertThat(producer.lastOffset(0, 1)).as("nothing sent to partition 1").isEqualTo(-1);
    assertThat(producer.lastOffset(1, 0)).isEqualTo(read(other, 0).get(0).offset());

    producer.send(0, 0, null, "p0-5", -1);
    producer.flush();
    p0 = read(out, 0);
    assertThat(producer.lastOffset(0, 0)).as("after the next flush")
        .isEqualTo(p0.get(p0.size() - 1).offset()).isGreaterThan(p0.get(p0.size() - 2).offset());
  }

  @Test
  void headersAndTimestampsComeBackAsSent() throws Exception {
    assumeTrue(carriesHeadersAndTimestamps(), "this system carries neither");
    StreamSpec out = newOutput("contract-headers", 1);
    SystemProducer producer = start(out);
    Headers traced = Headers.of("trace-id", "t-1").with("hop", new byte[] {0, 1, (byte) 0xff})
        .with("trace-id", "t-2");
    producer.send(0, 0, "k", "with", 1_234_567L, traced);
    producer.send(0, 0, "k", "without", 2_000_000L);
    producer.flush();

    List<Written> written = read(out, 0);
    assertThat(written).hasSize(2);
    assertThat(written.get(0).headers()).isEqualTo(traced);
    assertThat(written.get(0).headers().lastString("trace-id")).isEqualTo("t-2");
    assertThat(written.get(0).timestamp()).isEqualTo(1_234_567L);
    assertThat(written.get(1).headers().isEmpty()).isTrue();
    assertThat(written.get(1).timestamp()).isEqualTo(2_000_000L);
  }

  @Test
  void aSendWithHeadersToASystemWithoutThemWritesTheMessage() throws Exception {
    StreamSpec out = newOutput("contract-headers-anyway", 1);
    SystemProducer producer = start(out);
    producer.send(0, 0, null, "v", 5L, Headers.of("trace-id", "t"));
    producer.flush();
    assertThat(values(out, 0)).containsExactly("v");
  }

  /** Refuses to serialize "poison"; everything else is UTF-8. */
  private static final class PoisonSerde implements Serde<String> {
    @Override
    public byte[] toBytes(String object) {
      if ("poison".equals(object)) {
        throw new IllegalArgumentException("cannot serialize poison");
      }
      return new StringSerde().toBytes(object);
    }

    @Override
    public String fromBytes(byte[] bytes) {
      return new StringSerde().fromBytes(bytes);
    }
  }

  @Test
  void aValueItsSerdeCannotSerializeThrowsFromItsOwnSendAndLeavesTheOthers() throws Exception {
    assumeTrue(serializes(), "this system keeps objects as they are sent");
    StreamSpec out = counted(output("contract-poison", 1, new StringSerde(), new PoisonSerde()), 1);
    SystemProducer producer = start(out);
    producer.send(0, 0, null, "before", -1);
    assertThatThrownBy(() -> producer.send(0, 0, null, "poison", -1))
        .hasMessageContaining("cannot serialize poison");
    producer.send(0, 0, null, "after", -1);
    producer.flush();
    assertThat(values(out, 0)).containsExactly("before", "after");
  }

  @Test
  void aPartitionTheOutputDoesNotHaveIsRefusedBySend() throws Exception {
    StreamSpec out = newOutput("contract-range", 2);
    SystemProducer producer = start(out);
    assertThatThrownBy(() -> producer.send(0, 2, null, "nowhere", -1))
        .as("partition 2 of 2").isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has 2 partitions").hasMessageContaining("no partition 2");
    producer.send(0, 1, null, "somewhere", -1);
    producer.flush();
    assertThat(values(out, 0)).isEmpty();
    assertThat(values(out, 1)).containsExactly("somewhere");
  }

  @Test
  void aSendToAnIndexNeverRegisteredIsRefused() throws Exception {
    StreamSpec out = newOutput("contract-unregistered", 1);
    SystemProducer producer = start(out);
    assertThatThrownBy(() -> producer.send(7, 0, null, "nowhere", -1))
        .isInstanceOf(RuntimeException.class);
    producer.send(0, 0, null, "somewhere", -1);
    producer.flush();
    assertThat(values(out, 0)).containsExactly("somewhere");
  }
}
