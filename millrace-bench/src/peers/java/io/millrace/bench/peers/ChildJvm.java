package io.millrace.bench.peers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A benchmark run in a fresh JVM, so each figure starts from the same cold JIT and empty heap. The
 * child's stdout is echoed to our stderr (keeping our stdout to our own lines); its one line
 * starting with {@code resultPrefix} carries the figure.
 */
final class ChildJvm {
  private static final Pattern RATE = Pattern.compile("(?:^|\\s)msgs_per_sec=(\\S+)");

  private final String name;
  private final List<String> command = new ArrayList<>();
  private final String resultPrefix;

  ChildJvm(String name, List<String> jvmOptions, String classpath, String mainClass, List<String> args,
      String resultPrefix) {
    this.name = name;
    this.resultPrefix = resultPrefix;
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass);
    command.addAll(args);
  }

  /** Runs the child to completion and returns the msgs_per_sec of its result line. */
  double run() throws InterruptedException {
    try {
      Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String result = null;
      try (BufferedReader out = process.inputReader()) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          System.err.println("[" + name + "] " + line);
          if (line.startsWith(resultPrefix)) {
            result = line;
          }
        }
      }
      int exit = process.waitFor();
      if (exit != 0 || result == null) {
        throw new IllegalStateException(name + " exited with " + exit
            + (result == null ? " without a line starting '" + resultPrefix + "'" : "") + ": " + command);
      }
      return rate(result);
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + command, e);
    }
  }

  static double rate(String resultLine) {
    Matcher m = RATE.matcher(resultLine);
    if (!m.find()) {
      throw new IllegalStateException("no msgs_per_sec=<number> in: " + resultLine);
    }
    return Double.parseDouble(m.group(1));
  }
}
