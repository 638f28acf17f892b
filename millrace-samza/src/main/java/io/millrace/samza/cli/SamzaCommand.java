package io.millrace.samza.cli;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.checkpoint.SamzaCheckpointExport;
import io.millrace.samza.translate.SamzaJobTranslator;
import io.millrace.spi.checkpoint.CheckpointException;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code millrace samza export-checkpoint [--classpath ...] <samza.properties> [--set key=value
 * ...]}: the way back to Samza ({@link SamzaCheckpointExport}). {@code bin/millrace samza ...}
 * runs it, with the distribution's jars on the class path.
 *
 * <p>Exit codes: 0 written, 1 the checkpoint could not be exported (nothing written), 2 bad
 * usage or configuration.
 */
public final class SamzaCommand {
  static final String USAGE = String.join("\n",
      "usage: millrace samza export-checkpoint [--classpath <jar|dir>[:...]] <samza.properties>",
      "                                        [--set key=value ...]",
      "Writes the job's newest Millrace checkpoint into Samza's checkpoint topic",
      "(__samza_checkpoint_ver_1_for_<job.name>_<job.id>) as Samza 1.8 writes its own, so the",
      "job started on Samza again resumes each input partition after the last message Millrace",
      "processed. Stop the job here first. docs/samza.md, going back to Samza.",
      "  --classpath <cp>    the job's jars and class directories (its task, serdes)",
      "  --set key=value     overrides a key of the file (repeatable)",
      "Exit codes: 0 written, 1 nothing written (no checkpoint here, a checkpoint naming a",
      "stream the job does not read, a Kafka transaction open on a changelog, a system",
      "unreachable), 2 bad usage or configuration.");

  private SamzaCommand() {}

  /** Entry point. */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command line and returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      (args.length == 0 ? err : out).println(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    if (!args[0].equals("export-checkpoint")) {
      err.println("error: millrace samza takes export-checkpoint, not '" + args[0] + "'");
      err.println(USAGE);
      return 2;
    }
    String classPath = null;
    String file = null;
    List<String> overrides = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        out.println(USAGE);
        return 0;
      }
      if ((a.equals("--classpath") || a.equals("--set")) && i + 1 == args.length) {
        err.println("error: " + a + " needs a value\n" + USAGE);
        return 2;
      }
      if (a.equals("--classpath")) {
        classPath = args[++i];
      } else if (a.equals("--set")) {
        overrides.add(args[++i]);
      } else if (a.startsWith("-") || file != null) {
        err.println("error: unexpected argument '" + a + "'\n" + USAGE);
        return 2;
      } else {
        file = a;
      }
    }
    if (file == null) {
      err.println("error: no job file given\n" + USAGE);
      return 2;
    }
    URL[] jobClasses;
    try {
      jobClasses = urls(classPath);
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
    Thread thread = Thread.currentThread();
    ClassLoader caller = thread.getContextClassLoader();
    try (URLClassLoader loader = new URLClassLoader(jobClasses,
        SamzaCommand.class.getClassLoader())) {
      thread.setContextClassLoader(loader);
      JobConfig config = JobConfig.load(Path.of(file), overrides);
      SamzaCheckpointExport.checkExportable(config); // before the job's classes are needed
      JobConfig job = new JobConfig(new SamzaJobTranslator().translate(config, loader).config(),
          config.source());
      SamzaCheckpointExport.Exported done =
          SamzaCheckpointExport.export(job, loader, System::currentTimeMillis);
      out.println("wrote the checkpoints of " + done.tasks().size() + " task(s) (versions "
          + done.versions() + ") to Samza's checkpoint topic " + done.topic() + " on system "
          + done.system() + ":");
      for (Map.Entry<String, Map<String, Long>> task : done.tasks().entrySet()) {
        out.println("  " + task.getKey() + ": " + task.getValue());
      }
      out.println("start the job on Samza with the same properties: it resumes after these"
          + " offsets");
      return 0;
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return 2;
    } catch (CheckpointException | IllegalArgumentException | IllegalStateException e) {
      err.println("error: " + e.getMessage());
      return 1;
    } catch (IOException e) {
      err.println("error: cannot close the --classpath jars: " + e.getMessage());
      return 1;
    } finally {
      thread.setContextClassLoader(caller);
    }
  }

  /** {@code --classpath}'s entries, as {@code java -cp} reads them ({@code dir/*}: its jars). */
  private static URL[] urls(String classPath) {
    List<URL> urls = new ArrayList<>();
    if (classPath == null) {
      return new URL[0];
    }
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      try {
        if (entry.endsWith("/*") || entry.equals("*")) {
          Path dir = Path.of(entry.substring(0, entry.length() - 1));
          try (Stream<Path> jars = Files.list(dir)) {
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
              urls.add(jar.toUri().toURL());
            }
          } catch (IOException e) {
            throw new ConfigException("--classpath " + entry + ": cannot list " + dir + ": "
                + e.getMessage());
          }
        } else {
          urls.add(Path.of(entry).toUri().toURL());
        }
      } catch (MalformedURLException e) {
        throw new ConfigException("--classpath " + entry + " is not a path: " + e.getMessage());
      }
    }
    return urls.toArray(new URL[0]);
  }
}
