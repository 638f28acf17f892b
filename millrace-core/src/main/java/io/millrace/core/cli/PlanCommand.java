package io.millrace.core.cli;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.plan.Comparison;
import io.millrace.core.plan.Outline;
import io.millrace.core.plan.PlanFormat;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code millrace plan [--out FILE] [--against OLDER] <job.properties> ...}: prints the job's
 * plan (or writes it to {@code --out}), or compares it with an older plan file and says which
 * state the change would orphan. Nothing runs and nothing is created.
 */
final class PlanCommand {
  /** The exit code of a comparison that finds state the change would orphan. */
  static final int EXIT_ORPHANS = 4;

  private final String out;
  private final String against;
  private final String[] jobArgs;

  private PlanCommand(String out, String against, String[] jobArgs) {
    this.out = out;
    this.against = against;
    this.jobArgs = jobArgs;
  }

  /**
   * Takes {@code --out} and {@code --against} out of the arguments from {@code first} on; the
   * rest are the job's, for {@link JobArgs}.
   *
   * @throws ConfigException if one of them lacks its file, or is given twice
   */
  static PlanCommand parse(String[] args, int first) {
    String out = null;
    String against = null;
    List<String> rest = new ArrayList<>(List.of(args).subList(0, first));
    for (int i = first; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--set") || arg.equals("--classpath")) {
        rest.add(arg);
        if (i + 1 < args.length) {
          rest.add(args[++i]);
        }
      } else if (arg.equals("--out") || arg.equals("--against")) {
        if (i + 1 == args.length) {
          throw new ConfigException(arg + " needs a file\n" + Usage.PLAN_HELP);
        }
        String value = args[++i];
        if (arg.equals("--out")) {
          if (out != null) {
            throw new ConfigException("--out is given twice\n" + Usage.PLAN_HELP);
          }
          out = value;
        } else {
          if (against != null) {
            throw new ConfigException("--against is given twice\n" + Usage.PLAN_HELP);
          }
          against = value;
        }
      } else {
        rest.add(arg);
      }
    }
    return new PlanCommand(out, against, rest.toArray(String[]::new));
  }

  /** The arguments left for the job. */
  String[] jobArgs() {
    return jobArgs;
  }

  /** Plans the job, prints, saves or compares, and returns the exit code. */
  int run(JobConfig config, PrintStream stdout, PrintStream err) {
    Outline older = against == null ? null : read(Path.of(against)); // a bad file: before planning
    Outline outline;
    try {
      outline = JobPlanner.outline(config);
    } catch (ConfigException e) {
      throw e;
    } catch (RuntimeException e) { // a system cannot be reached, say
      err.println("error: cannot plan job " + config.source() + ": " + e.getMessage());
      return 1;
    }
    String text = PlanFormat.write(outline);
    if (out != null) {
      try {
        Files.writeString(Path.of(out), text, StandardCharsets.UTF_8);
      } catch (IOException e) {
        err.println("error: cannot write the plan to " + out + ": " + e);
        return 1;
      }
    }
    if (older == null) {
      if (out == null) {
        stdout.print(text);
      } else {
        stdout.println("plan of job " + outline.job() + " written to " + out);
      }
      return 0;
    }
    Comparison comparison = Comparison.of(older, outline);
    stdout.println("job " + outline.job() + " (" + config.source() + ") against the plan in "
        + against + ":");
    for (String orphan : comparison.orphans()) {
      stdout.println("orphaned: " + orphan);
    }
    for (String note : comparison.notes()) {
      stdout.println("note: " + note);
    }
    if (comparison.orphansState()) {
      stdout.println(comparison.orphans().size() + " change(s) would orphan state; keep the "
          + "old names (Stored.as, the stores' and streams' keys) to keep it");
      return EXIT_ORPHANS;
    }
    stdout.println(comparison.notes().isEmpty() ? "no change" : "no state would be orphaned");
    return 0;
  }

  private static Outline read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("cannot read plan file " + file + ": " + e);
    }
    return PlanFormat.read(text, file.toString());
  }
}
