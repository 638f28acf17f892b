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
 * config check ...}, {@code millrace status ...} and {@code millrace plan ...}; {@code --classpath} adds the jars or class
 * directories that hold the job's own classes (its task, serdes, systems).
 *
 * <p>Exit codes: 0 success, 1 the job failed, 2 bad usage or configuration, 3 a saved checkpoint
 * cannot be read (damaged or unreadable: nothing ran, nothing was changed), 4 {@code plan
 * --against} found state the change would orphan, 130 stopped by Ctrl-C (after a clean commit).
 */
public final class Main {
  /** The exit code of a job whose checkpoint cannot be read at start. */
  static final int EXIT_CHECKPOINT = 3;

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
    int run(JobArgs job, JobConfig config);
  }

  private static int command(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      err.println(Usage.USAGE);
      return 2;
    }
    String command = args[0];
    if (isHelp(command) || command.equals("help") && args.length == 1) {
      out.println(Usage.USAGE);
      return 0;
    }
    if (command.equals("help")) { // millrace help run: as millrace run --help
      String[] asked = args[1].equals("config") ? new String[] {"config", "check", "--help"}
          : new String[] {args[1], "--help"};
      return command(asked, out, err);
    }
    switch (command) {
      case "run":
        return withJob(args, 1, Usage.RUN_HELP, out, err, (job, config) -> {
          job.refuseMovedCheckpoints(); // before anything writes a checkpoint where it looks now
          return runJob(config, out, err);
        });
      case "status":
        return withJob(args, 1, Usage.STATUS_HELP, out, err,
            (job, config) -> status(job, config, out, err));
      case "plan": {
        if (wantsHelp(args, 1)) {
          out.println(Usage.PLAN_HELP);
          return 0;
        }
        PlanCommand plan;
        try {
          plan = PlanCommand.parse(args, 1);
        } catch (ConfigException e) {
          err.println("error: " + e.getMessage());
          return 2;
        }
        return withJob(plan.jobArgs(), 1, Usage.PLAN_HELP, out, err,
            (job, config) -> plan.run(config, out, err));
      }
      case "config":
        if (args.length >= 2 && isHelp(args[1])) {
          out.println(Usage.CHECK_HELP);
          return 0;
        }
        if (args.length < 2 || !args[1].equals("check")) {
          err.println("error: millrace config takes check"
              + (args.length < 2 ? "" : ", not '" + args[1] + "'") + "\n" + Usage.CHECK_HELP);
          return 2;
        }
        return withJob(args, 2, Usage.CHECK_HELP, out, err, (job, config) -> {
          JobPlanner.check(config);
          out.println("config OK: " + config.source());
          return 0;
        });
      case "new":
        if (wantsHelp(args, 1)) {
          out.println(Usage.NEW_HELP);
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
            + "status, plan, new, bench, kafka-dev; millrace --help says what each does)");
        err.println(Usage.USAGE);
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
      return body.run(job, config);
    } catch (ConfigException e) {
      err.println("error: " + (config == null ? e.getMessage()
          : job.explainPaths(job.blame(e.getMessage(), config.source()))));
      return 2;
    }
  }

  private static int status(JobArgs job, JobConfig config, PrintStream out, PrintStream err) {
    if (Coordinators.factory(config) instanceof LocalCoordinator.Factory) {
      int exit = LocalStatus.print(config, out);
      job.movedCheckpoints().ifPresent(moved -> out.println("note: " + moved));
      return exit;
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
