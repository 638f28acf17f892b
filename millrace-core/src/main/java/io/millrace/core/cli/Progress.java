package io.millrace.core.cli;

import io.millrace.core.job.LocalRunner;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress line of a running job: messages, rate, percent and time left (for bounded inputs).
 * On a terminal it redraws one line; otherwise it prints a plain line every ten seconds.
 */
final class Progress implements Runnable {
  private final LocalRunner runner;
  private final PrintStream out;
  private final boolean terminal;
  private volatile boolean stopped;
  private long lastCount;
  private long lastNanos;

  Progress(LocalRunner runner, PrintStream out, boolean terminal) {
    this.runner = runner;
    this.out = out;
    this.terminal = terminal;
  }

  void stop() {
    stopped = true;
  }

  @Override
  public void run() {
    lastNanos = runner.startNanos();
    long interval = terminal ? 500 : 10_000;
    while (!stopped) {
      try {
        Thread.sleep(interval);
      } catch (InterruptedException e) {
        return;
      }
      if (!stopped) {
        print(false);
      }
    }
  }

  /** Prints the line once more (the final figures when {@code last}). */
  void print(boolean last) {
    long now = System.nanoTime();
    long count = runner.processed();
    double elapsed = (now - runner.startNanos()) / 1e9;
    double rate = last ? count / Math.max(elapsed, 1e-9)
        : (count - lastCount) / Math.max((now - lastNanos) / 1e9, 1e-9);
    lastCount = count;
    lastNanos = now;
    // Offsets of files are line starts: a finished job is 100% even if the last offset is not the size.
    double fraction = last && runner.failure() == null && runner.fractionDone() >= 0 ? 1
        : runner.fractionDone();
    StringBuilder line = new StringBuilder();
    line.append(String.format(Locale.ROOT, "%,d messages  %,.0f msg/s  %.1fs", count, rate, elapsed));
    if (fraction >= 0) {
      line.append(String.format(Locale.ROOT, "  %5.1f%%", fraction * 100));
      if (!last && fraction > 0 && fraction < 1) {
        line.append(String.format(Locale.ROOT, "  %.0fs left", elapsed * (1 - fraction) / fraction));
      }
    }
    if (terminal) {
      out.print("\r\033[K" + line + (last ? "\n" : ""));
    } else {
      out.println(line);
    }
    out.flush();
  }
}
