package io.millrace.bench;

import io.millrace.bench.async.BatcherBench;
import io.millrace.bench.async.RemoteIoBench;
import io.millrace.bench.async.SyncPoolBench;
import io.millrace.bench.e2e.ContainerBench;
import io.millrace.bench.jmh.JmhBenchmarks;
import io.millrace.bench.kafka.KafkaBench;
import io.millrace.bench.kafka.KafkaMemoryBench;
import io.millrace.bench.kafka.KafkaRun;
import io.millrace.bench.store.RestoreBench;
import io.millrace.bench.store.RocksDbGetBench;
import io.millrace.bench.store.StoreCountBench;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * {@code millrace bench <name> [options]}: runs one benchmark. Every benchmark ends with one line
 * per figure, {@code RESULT <name> <key>=<value> ...}, for scripts.
 */
public final class BenchMain {
  static final String USAGE = String.join("\n",
      "usage: millrace bench <name> [options]",
      "  container  [--mode preloaded|live] [--messages 10000000] [--partitions 8] [--runs 5]",
      "             [--batch-size auto]  whole container, counting task (end-to-end)",
      "  remote-io  [--concurrency 1,3,10,100,1000] [--ordering partition|key|none] [--keys 10000]",
      "             [--seconds 10] [--runs 3]   async task, 10 partitions, timer-completed 1-200 ms calls",
      "  sync-pool  [--messages 2000000] [--spin-ns 1000] [--pool-size 2] [--runs 5]",
      "             CPU-bound sync task inline vs on the worker pool",
      "  batcher    [--connections 4] [--max-size 100] [--max-in-flight 1] [--seconds 10] [--runs 3]",
      "             remote call of 5 ms + 10 us/item, once per message vs through a Batcher",
      "  kafka      [--records 10000000] [--partitions 8] [--runs 3] [--warmup 1]",
      "             [--modes raw,consume,passthrough,streams; also bare,bare-eos,count,...]",
      "             [--bootstrap host:port]   Kafka: raw consumer, consume-only and pass-through jobs,",
      "             Kafka Streams (with the peers profile); starts its own broker unless --bootstrap;",
      "             bare, bare-eos: the client's own pass-through, the floor of any runtime on it",
      "  kafka-eos  [--records 5000000] [--keys 1000000] [--commit-ms 100] [--runs 3]   the kafka",
      "             modes under exactly-once vs Kafka Streams exactly_once_v2, and vs at-least-once",
      "  kafka-eos-recovery [--runs 3] [--state-mb 1024] [--eos-run-ms 15000] [--partitions 24]",
      "             one process holding the state under exactly-once, kill -9 and restart: time to",
      "             ready stores vs Kafka Streams exactly_once_v2 (with the peers profile)",
      "  nexmark    [--check] [--queries q0,q1,q2,q3,q4,q5,q7,q8,q11] [--events N] [--runs 3]",
      "             [--guarantee at-least-once|exactly-once] [--rate 10000] [--partitions 4]",
      "             [--systems millrace,kafka_streams,flink] [--out-of-order 1] [--bootstrap h:p]",
      "             Nexmark on Millrace's DSL, Kafka Streams and Flink (peers profile), same topics;",
      "             --check: a small run compared with the model, one line per query",
      "  kafka-memory [--partitions 1000] [--records-per-partition 2000] [--seconds 20]",
      "             heap after GC of a job with 1,000 partitions behind a slow task",
      "  scale-out  [--runs 3] [--scenarios failover,join,leave,cost] [--session-ms 10000] [--standbys 0]",
      "             [--keys 1000000] [--rate 12000] [--cost-records 16000000]   one job on several",
      "             processes (job.coordinator=kafka) vs Kafka Streams (with the peers profile);",
      "             starts its own broker unless --bootstrap; --set k=v,.. adds Millrace job keys;",
      "             --background-load N spins N threads in another JVM the whole run (the busy case);",
      "             --guarantee exactly-once runs failover, join and leave under exactly-once",
      "  store-count [--messages 2000000] [--keys N] [--store rocksdb|memory] [--cache-size 10000]",
      "             [--runs 3]   count per key in a store (unique keys by default), memory system input",
      "  store-restore [--records 10000000] [--runs 3] [--threads 1,2]   restore a RocksDB store",
      "             from its Kafka changelog (per restore thread count) vs from local files",
      "  dsl        [--job stateless|windowed-count] [--messages 10000000] [--partitions 8] [--runs 3]",
      "             a DSL job vs the hand-written task doing the same work, fresh JVMs, alternating",
      "  rocksdb-get [--keys 1000000]   bare RocksDB get of missing and present keys (the floor)",
      "  handoff    [JMH options]        micro-batched hand-off between two threads (JMH)",
      "  loop-path  [JMH options]        multiplexer + chooser + offsets per message, -prof gc (JMH)",
      "  checkpoint [JMH options]        file checkpoint of 100/1000/10000 partitions, -prof gc (JMH)",
      "  store-range [JMH options]       a join's short range read of a RocksDB store, -prof gc (JMH)",
      "  peers-container [--runs 5] [--jvm-opts \"-Xmx8g ...\"]  the container job on Millrace and Apache Samza 1.8",
      "                                  (needs: mvn -Ppeers -pl millrace-bench -am package -DskipTests)",
      "  peers-store-count [--runs 5]     count per key in RocksDB on Millrace and Apache Samza 1.8 (peers)",
      "  peers-samza-task [--tasks stateless,stateful] [--runs 3] [--messages 10000000]",
      "             [--store-messages 2000000]   the same Samza task classes on Samza 1.8 and on Millrace",
      "             (millrace-samza), and Millrace's own-API twin: ratio and the adapter's cost (peers)",
      "JMH options: -f forks -wi warmups -i iterations -r seconds -w seconds (defaults: 1 3 5 2 1),",
      "             -gc Parallel|G1 (the collector of the forked JVM; default G1)");

  private BenchMain() {}

  /** Entry point. */
  public static void main(String[] args) throws Throwable {
    if (args.length == 0 || args[0].equals("--help")) {
      System.out.println(USAGE);
      System.exit(args.length == 0 ? 2 : 0);
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      run(args[0], rest);
    } catch (IllegalArgumentException e) { // a bad option, found before any work
      System.err.println("error: bench " + args[0] + ": " + e.getMessage());
      System.exit(2);
    }
  }

  private static void run(String name, String[] rest) throws Throwable {
    switch (name) {
      case "container" -> ContainerBench.main(rest);
      case "remote-io" -> RemoteIoBench.main(rest);
      case "sync-pool" -> SyncPoolBench.main(rest);
      case "batcher" -> BatcherBench.main(rest);
      case "kafka" -> KafkaBench.main(rest);
      case "kafka-eos" -> KafkaBench.exactlyOnce(rest);
      case "kafka-eos-recovery" -> io.millrace.bench.scaleout.ScaleOutBench.main(
          concat(rest, "--scenarios", "eos-recovery")); // the last --scenarios wins
      case "kafka-run" -> KafkaRun.main(rest);
      case "kafka-memory" -> KafkaMemoryBench.main(rest);
      case "nexmark" -> io.millrace.bench.nexmark.run.NexmarkBench.main(rest);
      case "scale-out" -> io.millrace.bench.scaleout.ScaleOutBench.main(rest);
      case "store-count" -> StoreCountBench.main(rest);
      case "store-restore" -> RestoreBench.main(rest);
      case "rocksdb-get" -> RocksDbGetBench.main(rest);
      case "dsl" -> io.millrace.bench.dsl.DslBench.main(rest);
      case "dsl-run" -> io.millrace.bench.dsl.DslRun.main(rest);
      case "handoff", "loop-path", "checkpoint", "store-range" -> JmhBenchmarks.run(name, rest);
      case "peers-container" -> peers("io.millrace.bench.peers.PeersContainerBench", rest);
      case "peers-store-count" -> peers("io.millrace.bench.peers.PeersStoreCountBench", rest);
      case "peers-samza-task" -> peers("io.millrace.bench.peers.PeersSamzaTaskBench", rest);
      default -> {
        System.err.println("unknown benchmark '" + name + "'\n" + USAGE);
        System.exit(2);
      }
    }
  }

  private static String[] concat(String[] args, String... more) {
    String[] all = Arrays.copyOf(args, args.length + more.length);
    System.arraycopy(more, 0, all, args.length, more.length);
    return all;
  }

  private static void peers(String className, String[] args) throws Throwable {
    Class<?> type;
    try {
      type = Class.forName(className);
    } catch (ClassNotFoundException e) {
      System.err.println("the peers benchmarks are not built: run\n"
          + "  mvn -B -q -Ppeers -pl millrace-bench -am package -DskipTests\nfirst");
      System.exit(2);
      return;
    }
    Method main = type.getMethod("main", String[].class);
    main.invoke(null, (Object) args);
  }
}
