package io.millrace.core.cli;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.config.JobFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arguments of a command that takes a job: its file, {@code --set key=value} overrides and
 * {@code --classpath} entries, in any order. It also says when a bad value came from
 * {@code --set} rather than from the file: the configuration itself knows only one source.
 */
final class JobArgs {
  private final String file;
  private final Map<String, String> overrides;
  private final List<String> classpath;

  private JobArgs(String file, Map<String, String> overrides, List<String> classpath) {
    this.file = file;
    this.overrides = overrides;
    this.classpath = classpath;
  }

  /**
   * Parses {@code args} from {@code first} on.
   *
   * @param usage the command's usage, shown with an argument it does not take
   * @throws ConfigException naming an unexpected argument, a bad {@code --set} or a missing file
   */
  static JobArgs parse(String[] args, int first, String usage) {
    Map<String, String> overrides = new LinkedHashMap<>();
    List<String> classpath = new ArrayList<>();
    String file = null;
    for (int i = first; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--set") || arg.equals("--classpath")) {
        if (i + 1 == args.length) {
          throw new ConfigException(arg + " needs a value (" + (arg.equals("--set")
              ? "--set key=value" : "--classpath <jar|dir>[:...]") + ")\n" + usage);
        }
        if (arg.equals("--set")) {
          JobFile.override(args[++i], overrides);
        } else {
          classpath.add(args[++i]);
        }
      } else if (arg.startsWith("--set=")) {
        JobFile.override(arg.substring("--set=".length()), overrides);
      } else if (arg.startsWith("--classpath=")) {
        classpath.add(arg.substring("--classpath=".length()));
      } else if (file == null && !arg.startsWith("-")) {
        file = arg;
      } else {
        throw new ConfigException("unexpected argument '" + arg + "'" + (file != null
            && !arg.startsWith("-") ? " (the job file is " + file + ")" : "") + "\n" + usage);
      }
    }
    if (file == null) {
      throw new ConfigException("no job file given\n" + usage);
    }
    return new JobArgs(file, overrides, classpath);
  }

  /**
   * Reads the job file with its overrides. The {@code --classpath} entries (the user's jars and
   * class directories) go on a class loader that becomes this thread's context class loader,
   * where the job's classes are looked up; the job's threads inherit it.
   */
  JobConfig load() {
    if (!classpath.isEmpty()) {
      Thread.currentThread().setContextClassLoader(UserClasspath.loader(classpath,
          Main.class.getClassLoader()));
    }
    return JobFile.load(Path.of(file), overrides);
  }

  /**
   * Stops a job whose checkpoints an older Millrace kept in the current directory's reading of
   * its file (see {@link JobFile#refuseMovedCheckpoints}).
   *
   * @throws ConfigException naming both folders and what to do
   */
  void refuseMovedCheckpoints() {
    JobFile.refuseMovedCheckpoints(Path.of(file), overrides);
  }

  /** What {@link #refuseMovedCheckpoints} would say, or empty. */
  java.util.Optional<String> movedCheckpoints() {
    return JobFile.movedCheckpoints(Path.of(file), overrides, Path.of("").toAbsolutePath());
  }

  /** {@code message} with the job file's paths it names explained (as written, against what). */
  String explainPaths(String message) {
    return JobFile.explainPaths(message, Path.of(file), overrides);
  }

  /** The job file as given. */
  String file() {
    return file;
  }

  /**
   * The message of a configuration error, saying "from --set" where it blamed the job file
   * ({@code source}) for a key that {@code --set} gave.
   */
  String blame(String message, String source) {
    String blamed = message;
    for (Map.Entry<String, String> o : overrides.entrySet()) {
      String key = o.getKey();
      String fromSet = " from --set " + key + "=" + o.getValue();
      // JobConfig's "bad value 'v' for key in <file>" and KeyValidator's "unknown key ... in <file>".
      blamed = blamed.replace("for " + key + " in " + source, "for " + key + fromSet)
          .replace("key " + key + " (value '" + o.getValue() + "') in " + source,
              "key " + key + fromSet);
    }
    return blamed;
  }
}
