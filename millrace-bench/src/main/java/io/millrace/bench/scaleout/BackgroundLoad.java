package io.millrace.bench.scaleout;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A stated background load for {@code bench scale-out --background-load N}: a child JVM whose N
 * threads spin until it is killed, so the busy case (a developer's laptop running a build beside
 * the job) can be reproduced by anyone instead of depending on what else the machine did.
 */
public final class BackgroundLoad {
  /** What the spinning threads write, so the JIT cannot drop their work. */
  static volatile long sink;

  private BackgroundLoad() {}

  /** Starts a child JVM with {@code threads} spinning threads; kill it to stop the load. */
  static Process start(int threads) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx64m", "-cp",
        System.getProperty("java.class.path"), BackgroundLoad.class.getName(),
        Integer.toString(threads)));
    return new ProcessBuilder(command).inheritIO().start();
  }

  /** Spins {@code args[0]} threads until killed. */
  public static void main(String[] args) throws InterruptedException {
    int threads = Integer.parseInt(args[0]);
    List<Thread> spinning = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(() -> {
        long x = 1;
        while (true) {
          for (int j = 0; j < 1_000_000; j++) {
            x = x * 6364136223846793005L + 1442695040888963407L; // an LCG step: pure CPU
          }
          sink = x;
        }
      }, "background-load-" + i);
      t.setDaemon(false);
      t.start();
      spinning.add(t);
    }
    for (Thread t : spinning) {
      t.join();
    }
  }
}
