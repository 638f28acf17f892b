package io.millrace.core.cli;

import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
      "       millrace bench <name> [options]   (see millrace bench --help)");

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

  private static int command(String[] args, PrintStream out, PrintStream err) {
    try {
      if (args.length >= 2 && args[0].equals("run")) {
        return runJob(load(args, 1), out, err);
      }
      if (args.length >= 1 && args[0].equals("new")) {
        return NewProject.run(java.util.Arrays.copyOfRange(args, 1, args.length), out);
      }
      if (args.length >= 2 && args[0].equals("status")) {
        JobConfig config = load(args, 1);
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
      if (args.length >= 3 && args[0].equals("config") && args[1].equals("check")) {
        JobConfig config = load(args, 2);
        JobPlanner.check(config);
        out.println("config OK: " + config.source());
        return 0;
      }
      err.println(USAGE);
      return 2;
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
  }

  /**
   * Reads the job file named among {@code args} from {@code first} on, with its {@code --set}
   * overrides, and puts the {@code --classpath} entries (the user's jars and class directories)
   * on a class loader that becomes this thread's context class loader, where the job's classes
   * are looked up; the job's threads inherit it.
   */
  private static JobConfig load(String[] args, int first) {
    List<String> overrides = new ArrayList<>();
    List<String> classpath = new ArrayList<>();
    String file = null;
    for (int i = first; i < args.length; i++) {
      String arg = args[i];
      if ((arg.equals("--set") || arg.equals("--classpath")) && i + 1 < args.length) {
        (arg.equals("--set") ? overrides : classpath).add(args[++i]);
      } else if (arg.startsWith("--set=")) {
        overrides.add(arg.substring("--set=".length()));
      } else if (arg.startsWith("--classpath=")) {
        classpath.add(arg.substring("--classpath=".length()));
      } else if (file == null && !arg.startsWith("--")) {
        file = arg;
      } else {
        throw new ConfigException("unexpected argument '" + arg + "'\n" + USAGE);
      }
    }
    if (file == null) {
      throw new ConfigException("no job file given\n" + USAGE);
    }
    if (!classpath.isEmpty()) {
      Thread.currentThread().setContextClassLoader(UserClasspath.loader(classpath,
          Main.class.getClassLoader()));
    }
    return JobConfig.load(Path.of(file), overrides);
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
