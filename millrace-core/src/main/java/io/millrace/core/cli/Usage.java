package io.millrace.core.cli;

/** What the command line prints for {@code --help}: its commands, and what each takes. */
final class Usage {
  static final String USAGE = String.join("\n",
      "usage: millrace run [--classpath <jar|dir>[:...]] <job.properties> [--set key=value ...]",
      "       millrace config check [--classpath ...] <job.properties> [--set key=value ...]",
      "       millrace status [--classpath ...] <job.properties> [--set key=value ...]",
      "       millrace plan [--out FILE] [--against OLDER] [--classpath ...] <job.properties> ...",
      "       millrace new <dir> [--package <java.package>] [--kafka]   (a Maven project)",
      "       millrace bench <name> [options]   (a benchmark: millrace bench --help)",
      "       millrace kafka-dev start|stop|status|tail <topic>   (a development Kafka broker)",
      "       millrace samza export-checkpoint [--classpath ...] <samza.properties>   (a Samza",
      "                      job's checkpoint back into Samza's topic: docs/samza.md)",
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
  static final String PLAN_HELP = String.join("\n",
      "usage: millrace plan [--out FILE] [--against OLDER] [--classpath ...] <job.properties>",
      "                     [--set key=value ...]",
      "Prints the job's plan without running it or creating anything: its inputs (partitions as",
      "their systems say), outputs and internal (repartition) streams, stores with their",
      "changelogs and partitions, and a DSL job's operators with the names you gave them.",
      "  --out FILE          writes the plan to FILE instead (redirecting the output is the same)",
      "  --against OLDER     compares the job with a plan saved earlier and says which state the",
      "                      change would orphan: a store or internal stream renamed or removed,",
      "                      a changelog, engine, serde or partition count changed",
      "Format of a plan file: docs/configuration.md (millrace plan). Exit codes: 0 shown, or",
      "nothing orphaned; 1 a system cannot be asked; 2 bad usage, configuration or plan file",
      "(its line named); 4 the change would orphan state.");
  static final String NEW_HELP = String.join("\n",
      NewProject.USAGE,
      "Writes a Maven project: a task, its job.properties (files, or Kafka topics with --kafka),",
      "a test on the test driver, a README, and a build whose target/<dir>.jar runs the job.",
      "It builds against the io.millrace artifacts in the local Maven repository, which the",
      "repository's bin/millrace (or mvn install -DskipTests there) puts there.");

  private Usage() {}
}
