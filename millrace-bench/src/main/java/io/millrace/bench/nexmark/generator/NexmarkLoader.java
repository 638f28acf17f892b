package io.millrace.bench.nexmark.generator;

import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.EndOfInput;
import io.millrace.bench.nexmark.events.EventCodec;
import io.millrace.bench.nexmark.events.Person;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes a run's events to its three topics once: each record keyed by its id (a bid by its
 * auction's) as 8 big-endian bytes, its value {@link EventCodec}'s bytes, its Kafka timestamp the
 * event time, so a system reading the topic's timestamps sees the same event time as one reading
 * the field. Each partition ends with an {@link EndOfInput} marker. Topics that already hold exactly
 * the run's events are reused.
 */
public final class NexmarkLoader {
  private NexmarkLoader() {}

  /**
   * Makes sure the run's topics exist and hold its events; returns the records per topic
   * (person, auction, bid), its events and one end marker per partition.
   *
   * @throws IllegalStateException if a topic exists with other contents (name another run)
   */
  public static long[] ensure(String bootstrap, GeneratorConfig config, NexmarkTopics topics)
      throws Exception {
    long[] expected = count(config);
    for (int i = 0; i < expected.length; i++) {
      expected[i] += topics.partitions();
    }
    List<String> names = List.of(topics.person(), topics.auction(), topics.bid());
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      if (existing.containsAll(names)) {
        refuseDeletedRecords(admin, names, topics.partitions());
        long[] held = held(admin, names, topics.partitions());
        if (java.util.Arrays.equals(held, expected)) {
          System.out.printf("nexmark: topics %s already hold the run's %,d events%n", names,
              config.events());
          return expected;
        }
        throw new IllegalStateException("topics " + names + " hold " + java.util.Arrays.toString(
            held) + " records, not the run's " + java.util.Arrays.toString(expected)
            + ": delete them (an interrupted load?)");
      }
      List<NewTopic> missing = new ArrayList<>();
      for (String name : names) {
        if (!existing.contains(name)) {
          missing.add(new NewTopic(name, topics.partitions(), (short) 1));
        }
      }
      admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
      // Before the first send, every partition's leader serves requests (listing offsets is
      // answered only by one; the admin client retries until it is). Else a first batch refused
      // while the broker took the leadership, retried after later batches were accepted, spins on
      // out-of-order sequence errors until it expires (KAFKA-15591; CI failed on it here, as
      // KafkaSystemAdmin.awaitLeaders says for Millrace's own topics).
      held(admin, names, topics.partitions());
    }
    write(bootstrap, config, topics);
    return expected;
  }

  /** Persons, auctions and bids in the run, by generating it (cheap: no strings kept). */
  static long[] count(GeneratorConfig config) {
    long[] counts = new long[3];
    for (long n = 0; n < config.events(); n++) {
      long rem = config.adjustedEventNumber(n) % GeneratorConfig.PROPORTION_DENOMINATOR;
      counts[rem < GeneratorConfig.PERSON_PROPORTION ? 0
          : rem < GeneratorConfig.PERSON_PROPORTION + GeneratorConfig.AUCTION_PROPORTION ? 1
          : 2]++;
    }
    return counts;
  }

  /**
   * Refuses topics whose first records the broker has deleted (a long-lived broker's time
   * retention, 7 days by default, deletes them once a segment rolls: the events' timestamps are
   * long past): a run would wait for records that are gone.
   */
  static void refuseDeletedRecords(Admin admin, List<String> names, int partitions)
      throws Exception {
    Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
    for (String name : names) {
      for (int p = 0; p < partitions; p++) {
        specs.put(new TopicPartition(name, p), OffsetSpec.earliest());
      }
    }
    for (var e : admin.listOffsets(specs).all().get(30, TimeUnit.SECONDS).entrySet()) {
      if (e.getValue().offset() > 0) {
        throw new IllegalStateException("topic " + e.getKey().topic() + " partition "
            + e.getKey().partition() + " starts at offset " + e.getValue().offset()
            + ", not 0: the broker deleted its first records (its retention; the events' "
            + "timestamps are long past). Delete the topics " + names + " to load them again");
      }
    }
  }

  private static long[] held(Admin admin, List<String> names, int partitions) throws Exception {
    Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
    for (String name : names) {
      for (int p = 0; p < partitions; p++) {
        specs.put(new TopicPartition(name, p), OffsetSpec.latest());
      }
    }
    long[] held = new long[names.size()];
    for (var e : admin.listOffsets(specs).all().get(30, TimeUnit.SECONDS).entrySet()) {
      held[names.indexOf(e.getKey().topic())] += e.getValue().offset();
    }
    return held;
  }

  private static void write(String bootstrap, GeneratorConfig config, NexmarkTopics topics) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "all");
    p.put("linger.ms", "20");
    p.put("batch.size", "524288");
    p.put("buffer.memory", "268435456");
    p.put("compression.type", "none");
    long start = System.nanoTime();
    Generator generator = new Generator(config);
    AtomicReference<Exception> failed = new AtomicReference<>();
    Callback onFailure = (metadata, e) -> {
      if (e != null) {
        failed.compareAndSet(null, e);
      }
    };
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      while (generator.hasNext()) {
        producer.send(record(topics, generator.next()), onFailure);
      }
      long end = config.timestampOf(config.events()) + EndOfInput.AFTER_LAST_EVENT_MS;
      for (int partition = 0; partition < topics.partitions(); partition++) {
        for (Object marker : new Object[] {EndOfInput.person(end), EndOfInput.auction(end),
            EndOfInput.bid(end)}) {
          ProducerRecord<byte[], byte[]> r = record(topics, marker);
          producer.send(new ProducerRecord<>(r.topic(), partition, r.timestamp(), r.key(),
              r.value()), onFailure);
        }
      }
      producer.flush();
    }
    if (failed.get() != null) {
      throw new IllegalStateException("the events could not all be written to " + topics.person()
          + ", " + topics.auction() + ", " + topics.bid() + " (delete them before the next run): "
          + failed.get(), failed.get());
    }
    System.out.printf("nexmark: wrote %,d events to %s, %s, %s in %.1f s%n", config.events(),
        topics.person(), topics.auction(), topics.bid(), (System.nanoTime() - start) / 1e9);
  }

  /** The Kafka record of one event. */
  static ProducerRecord<byte[], byte[]> record(NexmarkTopics topics, Object event) {
    if (event instanceof Bid b) {
      return new ProducerRecord<>(topics.bid(), null, b.dateTime(), key(b.auction()),
          EventCodec.encode(b));
    } else if (event instanceof Auction a) {
      return new ProducerRecord<>(topics.auction(), null, a.dateTime(), key(a.id()),
          EventCodec.encode(a));
    } else {
      Person person = (Person) event;
      return new ProducerRecord<>(topics.person(), null, person.dateTime(), key(person.id()),
          EventCodec.encode(person));
    }
  }

  /** An id as a record key: 8 big-endian bytes. */
  public static byte[] key(long id) {
    return ByteBuffer.allocate(8).putLong(id).array();
  }
}
