package io.millrace.bench.nexmark.generator;

/**
 * The three topics a run's events are written to, named after what makes the run (seed, events,
 * rate, out-of-order group, partitions), so a later run with the same settings reuses them and a
 * different one never reads stale events.
 *
 * @param person the persons' topic, keyed by person id
 * @param auction the auctions' topic, keyed by auction id
 * @param bid the bids' topic, keyed by auction id (bids and auctions are co-partitioned)
 * @param partitions partitions of each topic
 */
public record NexmarkTopics(String person, String auction, String bid, int partitions) {

  /** The topics of {@code config}'s run with {@code partitions} partitions each. */
  public static NexmarkTopics of(GeneratorConfig config, int partitions) {
    String tag = "s" + config.seed() + "-n" + config.events() + "-r" + config.eventsPerSecond()
        + "-o" + config.outOfOrderGroupSize() + "-p" + partitions;
    return new NexmarkTopics("nexmark-person-" + tag, "nexmark-auction-" + tag,
        "nexmark-bid-" + tag, partitions);
  }
}
