package io.millrace.samza.checkpoint;

import io.millrace.api.Envelope;
import io.millrace.api.Serde;
import io.millrace.api.StreamPartition;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.config.SamzaJob;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.checkpoint.CheckpointImport;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemConsumer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Reads the offsets a Samza 1.x job checkpointed in Kafka ({@code task.checkpoint.factory=
 * org.apache.samza.checkpoint.kafka.KafkaCheckpointManagerFactory}), so that the job, moved to
 * Millrace, resumes each input partition after the last message Samza processed. Samza keeps them
 * in one compacted topic per job, {@code __samza_checkpoint_ver_1_for_<job.name>_<job.id>}
 * ({@code _} in the name and id made {@code -}; {@code job.id} 1 when unset), partition 0, one
 * record per task and commit ({@link SamzaCheckpointRecord}); the newest record of a task is its
 * checkpoint. Like Samza, it reads the versions {@code task.checkpoint.read.versions} lists (1
 * by default; a task with none of the first takes the next).
 *
 * <p>Stores need nothing from here: a Millrace store with no files of its own restores from its
 * changelog to the head, and a Samza job's stores name Samza's changelog topics, holding Samza's
 * bytes, in the partitions Samza gives them (the translation sets Samza's changelog order,
 * {@code job.changelog.partition.order=samza}).
 */
public final class SamzaCheckpointImport implements CheckpointImport {
  private static final long READ_TIMEOUT_MS = 120_000;
  /** Bytes as they are (the export's too): the checkpoint topic's keys and values. */
  static final Serde<byte[]> BYTES = new Serde<>() {
    @Override
    public byte[] toBytes(byte[] object) {
      return object;
    }

    @Override
    public byte[] fromBytes(byte[] bytes) {
      return bytes;
    }
  };

  /** Samza's checkpoint topic of a job, from its original keys. */
  static String topic(JobConfig config) {
    String name = config.get(SamzaJob.ORIGINAL + "job.name",
        config.get(SamzaJob.ORIGINAL + "app.name", config.get("job.name")));
    String id = config.get(SamzaJob.ORIGINAL + "job.id",
        config.get(SamzaJob.ORIGINAL + "app.id", "1"));
    return "__samza_checkpoint_ver_1_for_" + name.replace('_', '-') + "_" + id.replace('_', '-');
  }

  private static String system(JobConfig config) {
    return config.required("task.checkpoint.system");
  }

  @Override
  public String describe(JobConfig config) {
    return "Samza's checkpoint topic " + topic(config) + " on system " + system(config);
  }

  @Override
  public Map<StreamPartition, Long> read(Source source) {
    JobConfig config = source.config();
    String system = system(config);
    String topic = topic(config);
    StreamSpec spec = new StreamSpec(topic, topic, BYTES, BYTES);
    SystemAdmin admin = source.admin(system);
    try {
      admin.partitionCount(spec);
    } catch (IllegalArgumentException e) {
      return Map.of(); // Samza never checkpointed this job here
    }
    StreamMetadata head = admin.metadata(spec, 0);
    if (head.isEmpty()) {
      return Map.of();
    }
    Map<Integer, Map<String, Read>> byVersion = read(source, system, spec, head.upcoming());
    Map<StreamPartition, Long> offsets = new TreeMap<>(
        java.util.Comparator.comparing(StreamPartition::toString));
    Map<String, String> ids = inputIds(config);
    for (String task : tasks(byVersion)) {
      for (int version : readVersions(config)) {
        Read r = byVersion.getOrDefault(version, Map.of()).get(task);
        if (r != null) {
          offsets.putAll(toMillrace(ids, r, topic));
          break;
        }
      }
    }
    return offsets;
  }

  private static List<String> tasks(Map<Integer, Map<String, Read>> byVersion) {
    java.util.Set<String> tasks = new java.util.TreeSet<>();
    byVersion.values().forEach(m -> tasks.addAll(m.keySet()));
    return new ArrayList<>(tasks);
  }

  private static List<Integer> readVersions(JobConfig config) {
    String key = SamzaJob.ORIGINAL + "task.checkpoint.read.versions";
    List<Integer> versions = new ArrayList<>();
    for (String v : config.getList(key)) {
      if (!v.equals("1") && !v.equals("2")) {
        throw config.bad(key, config.get(key), "checkpoint versions 1 and/or 2, comma-separated");
      }
      versions.add(Integer.parseInt(v));
    }
    return versions.isEmpty() ? List.of(1) : versions;
  }

  /** A record, and its offset in the checkpoint topic. */
  private record Read(SamzaCheckpointRecord record, long offset) {}

  /** The newest record of each task, by version, up to {@code end} (the head as of now). */
  private static Map<Integer, Map<String, Read>> read(Source source,
      String system, StreamSpec spec, long end) {
    Map<Integer, Map<String, Read>> byVersion = new HashMap<>();
    SystemConsumer consumer = source.consumer(system);
    long[] position = {-1};
    BatchSink sink = new BatchSink() {
      @Override
      public void accept(int index, Envelope[] messages, int from, int count) {
        for (int i = from; i < from + count; i++) {
          Envelope m = messages[i];
          SamzaCheckpointRecord r;
          try {
            r = SamzaCheckpointRecord.parse((byte[]) m.key(), (byte[]) m.value());
          } catch (IllegalArgumentException | ClassCastException e) {
            throw unreadable(spec.physicalName(), m.offset(), e.getMessage());
          }
          if (r != null) {
            byVersion.computeIfAbsent(r.version(), v -> new HashMap<>())
                .put(r.taskName(), new Read(r, m.offset()));
          }
          position[0] = Math.max(position[0], m.offset() + 1);
        }
      }

      @Override
      public void endOfStream(int index) {}

      @Override
      public void head(int index, long upcomingOffset) {}

      @Override
      public void position(int index, long nextOffset) {
        position[0] = Math.max(position[0], nextOffset);
      }
    };
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_TIMEOUT_MS);
    try {
      consumer.register(0, spec, 0, StartPosition.oldest());
      consumer.start();
      int[] indices = {0};
      while (position[0] < end) {
        if (System.nanoTime() > deadline) {
          throw new CheckpointException("cannot read Samza's checkpoint topic "
              + spec.physicalName() + " on system " + system + " to its end (offset " + end
              + ") within " + READ_TIMEOUT_MS + " ms: read up to " + position[0]);
        }
        consumer.poll(indices, 1, 10_000, sink, 100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckpointException("interrupted while reading Samza's checkpoint topic "
          + spec.physicalName(), e);
    } finally {
      consumer.stop();
    }
    return byVersion;
  }

  private static CheckpointException unreadable(String topic, long offset, String why) {
    return new CheckpointException("Samza checkpoint record at topic " + topic
        + " partition 0 offset " + offset + " cannot be read: " + why
        + ". Nothing was committed (docs/samza.md, moving a running Samza job over)");
  }

  /** The job's inputs by Samza's name for them ({@code system\0topic}): their stream ids. */
  private static Map<String, String> inputIds(JobConfig config) {
    Map<String, String> ids = new HashMap<>();
    for (String id : config.getList("task.inputs")) {
      String system = config.get("streams." + id + ".system");
      String physical = config.get("streams." + id + ".physical.name", id);
      ids.put(system + "\0" + physical, id);
    }
    return ids;
  }

  /**
   * A task's checkpointed input offsets as the Millrace job names them. Entries of no input (a
   * store's changelog, with Samza's state marker for an offset; a stream no longer read) are
   * left out.
   */
  private static Map<StreamPartition, Long> toMillrace(Map<String, String> ids, Read read,
      String topic) {
    Map<StreamPartition, Long> offsets = new HashMap<>();
    read.record().offsets().forEach((p, offset) -> {
      String id = ids.get(p.system() + "\0" + p.stream());
      if (id != null) {
        try {
          offsets.put(new StreamPartition(p.system(), id, p.partition()), Long.parseLong(offset));
        } catch (NumberFormatException e) {
          throw unreadable(topic, read.offset(), "the offset of " + p.system() + "."
              + p.stream() + " partition " + p.partition() + " is '" + offset
              + "', where Samza's Kafka system writes a decimal number");
        }
      }
    });
    return offsets;
  }
}
