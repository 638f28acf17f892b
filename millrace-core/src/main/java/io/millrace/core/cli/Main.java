package io.millrace.core.cli;

import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.coordinate.Coordinators;
import io.millrace.core.coordinate.LocalCoordinator;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * {@code millrace run [--classpath ...] job.properties [--set key=value ...]}, {@code millrace
 * config check ...} and {@code millrace status ...}; {@code --classpath} adds the jars or class
 * directories that hold the job's own classes (its task, serdes, systems).
 *
 * <p>Exit codes: 0 success, 1 the job failed, 2 bad usage or configuration, 3 a saved checkpoint
 * cannot be read (damaged or unreadable: nothing ran, nothing was changed), 130 stopped by Ctrl-C
 * (after a clean commit).
 */
public final class Main {
  /** The exit code of a job whose checkpoint cannot be read at start. */
  static final int EXIT_CHECKPOINT = 3;
  static final String USAGE = String.join("\n",
      "usage: millrace run [--classpath <jar|dir>[:...]] <job.properties> [--set key=value ...]",
      "       millrace config check [--classpath ...] <job.properties> [--set key=value ...]",
      "       millrace status [--classpath ...] <job.properties> [--set key=value ...]",
      "       millrace new <dir> [--package <java.package>] [--kafka]   (a Maven project)",
      "       millrace bench <name> [options]   (a benchmark: millrace bench --help)",
      "       millrace kafka-dev start|stop|status|tail <topic>   (a development Kafka broker)",
      "       millrace <command> --help   (what a command does and takes)",
      "bench and kafka-dev run from a clone of the repository (its bin/millrace). Every key of a",
      "job file: docs/configuration.md.");
  static final String RUN_HELP = String.join("\n",
      "usage: millrace run [--classpath <jar|dir>[:...]] <job.properties> [--set key=value ...]",
      "Runs a job in this process until its bounded inputs end, or until Ctrl-C, which commits and",
      "stops. Bounded jobs show a progress line (messages, rate, percent, time left).",
      "  <job.properties>    the job's keys (docs/configuration.md); a relative path in the file",
      "                      is relative to the file's folder",
      "  --set key=value     overrides a key of the file (repeatable); a relative path given",
      "                      here is relative to the current directory",
      "  --classpath <cp>    jars and class directories holding the job's classes, as for",
      "                      java -cp (dir/* is every jar in dir); before or after the file",
      "Exit codes: 0 done, 1 the job failed, 2 bad usage or configuration, 3 a saved checkpoint",
      "is damaged or unreadable (left as it is), 130 stopped by Ctrl-C after a clean commit.");
  static final String CHECK_HELP = String.join("\n",
      "usage: millrace config check [--classpath ...] <job.properties> [--set key=value ...]",
      "Checks a job's configuration without running it or touching its streams: every key",
      "known, every value well formed, its classes found. Exit codes: 0 good, 2 bad (the key,",
      "its value and what is allowed on one error line).");
  static final String STATUS_HELP = String.join("\n",
      "usage: millrace status [--classpath ...] <job.properties> [--set key=value ...]",
      "What the job's processes are doing now. job.coordinator=kafka: the group's processes,",
      "their tasks, lag and last rebalance. A local job: its running process's status, asked",
      "from its metrics.http.port on this machine (metrics.http.host), or where to look; and",
      "its last checkpoint. Exit codes: 0 shown, 1 no process of the job answered, 2 bad usage.");
  static final String NEW_HELP = String.join("\n",
      NewProject.USAGE,
      "Writes a Maven project: a task, its job.properties (files, or Kafka topics with --kafka),",
      "a test on the test driver, a README, and a build whose target/<dir>.jar runs the job.",
      "It builds against the io.millrace artifacts in the local Maven repository, which the",
      "repository's bin/millrace (or mvn install -DskipTests there) puts there.");

  private Main() {}

  /** Entry point. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command line and returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try {
      return command(args, out, err);
    } finally {
      // Back to the caller's loader (a test runs commands in-process), closing --classpath's.
      ClassLoader used = Thread.currentThread().getContextClassLoader();
      Thread.currentThread().setContextClassLoader(loader);
      if (used != loader && used instanceof java.net.URLClassLoader userClasses) {
        try {
          userClasses.close();
        } catch (java.io.IOException e) {
          err.println("warning: cannot close the --classpath jars: " + e.getMessage());
        }
      }
    }
  }

  /** What a job command does with its loaded configuration. */
  @FunctionalInterface
  private interface JobCommand {
    int run(JobConfig config);
  }

  private static int command(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.println(USAGE);
      return 2;
    }
    String command = args[0];
    if (isHelp(command) || command.equals("help") && args.length == 1) {
      out.println(USAGE);
      return 0;
    }
    if (command.equals("help")) { // millrace help run: as millrace run --help
      String[] asked = args[1].equals("config") ? new String[] {"config", "check", "--help"}
          : new String[] {args[1], "--help"};
      return command(asked, out, err);
    }
    switch (command) {
      case "run":
        return withJob(args, 1, RUN_HELP, out, err, config -> runJob(config, out, err));
      case "status":
        return withJob(args, 1, STATUS_HELP, out, err, config -> status(config, out, err));
      case "config":
        if (args.length >= 2 && isHelp(args[1])) {
          out.println(CHECK_HELP);
          return 0;
        }
        if (args.length < 2 || !args[1].equals("check")) {
          err.println("error: millrace config takes check"
              + (args.length < 2 ? "" : ", not '" + args[1] + "'") + "\n" + CHECK_HELP);
          return 2;
        }
        return withJob(args, 2, CHECK_HELP, out, err, config -> {
          JobPlanner.check(config);
          out.println("config OK: " + config.source());
          return 0;
        });
      case "new":
        if (wantsHelp(args, 1)) {
          out.println(NEW_HELP);
          return 0;
        }
        try {
          return NewProject.run(java.util.Arrays.copyOfRange(args, 1, args.length), out);
        } catch (ConfigException e) {
          err.println("error: " + e.getMessage());
          return 2;
        }
      case "bench":
      case "kafka-dev":
        err.println("error: millrace " + command + " runs from a clone of Millrace's repository "
            + "(its bin/millrace builds what it needs), not from the distribution");
        return 2;
      default:
        err.println("error: unknown command '" + command + "' (commands: run, config check, "
            + "status, new, bench, kafka-dev; millrace --help says what each does)");
        err.println(USAGE);
        return 2;
    }
  }

  private static boolean isHelp(String arg) {
    return arg.equals("--help") || arg.equals("-h");
  }

  /** Whether a --help or -h comes among the arguments after the command. */
  private static boolean wantsHelp(String[] args, int first) {
    for (int i = first; i < args.length; i++) {
      if (args[i].equals("--set") || args[i].equals("--classpath")) {
        i++; // its value, which may be anything
      } else if (isHelp(args[i])) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs a command on the job named among {@code args} from {@code first} on; a bad
   * configuration is one error line (saying "from --set" where an override was bad), exit 2.
   */
  private static int withJob(String[] args, int first, String help, PrintStream out,
      PrintStream err, JobCommand body) {
    if (wantsHelp(args, first)) {
      out.println(help);
      return 0;
    }
    JobArgs job;
    try {
      job = JobArgs.parse(args, first, help);
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
    JobConfig config = null;
    try {
      config = job.load();
      return body.run(config);
    } catch (ConfigException e) {
      err.println("error: " + (config == null ? e.getMessage()
          : job.blame(e.getMessage(), config.source())));
      return 2;
    }
  }

  private static int status(JobConfig config, PrintStream out, PrintStream err) {
    if (Coordinators.factory(config) instanceof LocalCoordinator.Factory) {
      return LocalStatus.print(config, out);
    }
    JobPlan plan;
    try {
      plan = JobPlanner.plan(config);
    } catch (ConfigException e) {
      throw e;
    } catch (RuntimeException e) { // the job's systems cannot be reached, say
      err.println("error: cannot plan job " + config.source() + ": " + e.getMessage());
      return 1;
    }
    try {
      plan.coordinatorFactory().status(plan.coordinatorContext(), out);
    } catch (RuntimeException e) {
      err.println("error: " + e.getMessage());
      return 1;
    } finally {
      plan.close();
    }
    return 0;
  }

  private static int runJob(JobConfig config, PrintStream out, PrintStream err) {
    LocalRunner runner;
    try {
      runner = LocalRunner.start(JobPlanner.plan(config), Clock.SYSTEM);
    } catch (ConfigException e) {
      throw e;
    } catch (RuntimeException e) { // a system cannot be reached, say: one line, no stack trace
      err.println("error: cannot start job " + config.source() + ": " + e.getMessage());
      // A checkpoint that cannot be read: starting anyway would reprocess or skip input, so stop
      // with the file named and leave it as it is for the operator.
      return e instanceof CheckpointException ? EXIT_CHECKPOINT : 1;
    }
    JobPlan plan = runner.plan();
    boolean[] interrupted = {false};
    Thread hook = new Thread(() -> {
      interrupted[0] = true;
      err.println("\nstopping: committing and closing (Ctrl-C again to kill)");
      runner.requestStop();
      try {
        runner.await(plan.shutdownMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException ignored) {
        Thread.currentThread().interrupt();
      }
    }, "millrace-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    Progress progress = new Progress(runner, out, System.console() != null);
    Thread progressThread = new Thread(progress, "millrace-progress");
    progressThread.setDaemon(true);
    out.println("running job " + plan.jobName() + ": " + plan.taskCount() + " tasks in "
        + plan.containerCount() + " container(s), inputs " + plan.inputs() + ", outputs "
        + plan.outputs());
    progressThread.start();
    try {
      runner.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } finally {
      progress.stop();
    }
    progress.print(true);
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // Already shutting down (Ctrl-C): the hook is running.
    }
    if (runner.failure() != null) {
      err.println("job " + plan.jobName() + " failed: " + runner.failure().getMessage());
      return 1;
    }
    if (interrupted[0]) {
      return 130;
    }
    out.println("job " + plan.jobName() + " done");
    for (String output : plan.outputs()) {
      out.println("output " + output + ": " + plan.streams().get(output).system() + " "
          + plan.streams().get(output).spec().physicalName());
    }
    return 0;
  }
}
