package io.millrace.examples.pageviews;

import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A stand-in for a remote user service: each lookup answers after a latency drawn uniformly from
 * 1-200 ms, on a timer thread (no thread blocks while the call is "on the wire"), like an
 * asynchronous HTTP client would.
 */
public final class SimulatedUserService {
  private static final String[] COUNTRIES = {"GB", "US", "NL", "CH", "DE", "FR", "JP", "BR"};
  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread thread = new Thread(r, "simulated-user-service");
    thread.setDaemon(true);
    return thread;
  });
  private final SplittableRandom random;
  private final double minMillis;
  private final double maxMillis;

  /** A service with latencies uniform in [minMillis, maxMillis]. */
  public SimulatedUserService(long seed, double minMillis, double maxMillis) {
    this.random = new SplittableRandom(seed);
    this.minMillis = minMillis;
    this.maxMillis = maxMillis;
  }

  /**
   * Looks a user up; {@code answer} gets the user's country (or an error) later, on the timer
   * thread. Call from one thread (the task's loop thread): the random source is not shared.
   */
  public void lookup(String userId, BiConsumer<String, Throwable> answer) {
    long micros = (long) ((minMillis + random.nextDouble() * (maxMillis - minMillis)) * 1000);
    String country = COUNTRIES[Math.floorMod(userId.hashCode(), COUNTRIES.length)];
    TIMER.schedule(() -> answer.accept(country, null), micros, TimeUnit.MICROSECONDS);
  }
}
