package io.millrace.bench.kafka;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;

/**
 * Deletes the topics one benchmark run made on the broker: its output, its changelogs, its
 * checkpoint topic, Kafka Streams' internal topics. Each run names them after its own run id, so
 * the input topic, which the next runs read again, is never among them. Without it a broker kept
 * between runs ({@code --bootstrap}) filled this machine's disk: a pass-through run of 10,000,000
 * records leaves about 1.1 GB of output behind.
 */
public final class BenchTopics {
  private BenchTopics() {}

  /**
   * Deletes every topic whose name holds {@code run}; a failure is printed, not thrown (the run's
   * figures stand).
   */
  public static void deleteRunTopics(String bootstrap, String run) {
    if (run == null || run.length() < 8) {
      throw new IllegalArgumentException("a run id of at least 8 characters, not '" + run + "'");
    }
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      List<String> ours = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
          .filter(name -> name.contains(run)).toList();
      if (!ours.isEmpty()) {
        admin.deleteTopics(ours).all().get(60, TimeUnit.SECONDS);
      }
    } catch (ExecutionException | TimeoutException e) {
      System.err.println("could not delete the topics of run " + run + " at " + bootstrap + ": "
          + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
