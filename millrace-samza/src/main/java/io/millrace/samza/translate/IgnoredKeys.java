package io.millrace.samza.translate;

import io.millrace.api.config.JobConfig;
import java.util.List;

/**
 * Samza keys that have no meaning on Millrace, each family with why: they are listed once at
 * start, not refused, so that a Samza job's file runs as it is. Keys outside Millrace's and
 * Samza's namespaces are the job's own (for its task), listed likewise.
 */
final class IgnoredKeys {
  private record Family(String prefix, String why) {
    boolean matches(String key) {
      return prefix.endsWith(".") ? key.startsWith(prefix) : key.equals(prefix);
    }
  }

  private static final String IN_PROCESS = "Millrace runs the job in this process"
      + " (bin/millrace run); Samza's deployment (YARN, cluster managers, job factories, JVM"
      + " options) has no meaning here";
  private static final String COORDINATOR = "Samza's job coordinator (its coordinator stream,"
      + " ZooKeeper, task and partition groupers) has no meaning here: Millrace's"
      + " job.coordinator=local (the default) runs every task here, task k reading partition k"
      + " of every input";
  private static final String METRICS = "Samza's metrics reporters are not run: the task's"
      + " metrics go to Millrace's own (metrics.reporters=log,jmx; metrics.http.port serves"
      + " Prometheus)";
  private static final String STORE_DIRS = "a Millrace job keeps its stores under"
      + " job.state.dir (state/<job.name> next to the job file)";
  private static final String NOT_MAPPED = "Samza's behaviour these keys tune has no counterpart"
      + " here (docs/samza.md)";

  private static final List<Family> FAMILIES = List.of(
      new Family("yarn.", IN_PROCESS),
      new Family("cluster-manager.", IN_PROCESS),
      new Family("job.factory.class", IN_PROCESS),
      new Family("app.runner.class", IN_PROCESS),
      new Family("app.mode", IN_PROCESS),
      new Family("task.opts", IN_PROCESS),
      new Family("task.java.home", IN_PROCESS),
      new Family("task.execute", IN_PROCESS),
      new Family("task.log4j.system", IN_PROCESS),
      new Family("job.config.loader.", IN_PROCESS),
      new Family("job.config.rewriters", IN_PROCESS),
      new Family("job.config.rewriter.", IN_PROCESS),
      new Family("job.autosizing.", IN_PROCESS),
      new Family("job.host-affinity.enabled", IN_PROCESS),
      new Family("job.systemstreampartition.", COORDINATOR),
      new Family("task.name.grouper.factory", COORDINATOR),
      new Family("job.debounce.time.ms", COORDINATOR),
      new Family("metrics.reporter.", METRICS),
      new Family("metrics.timer.enabled", METRICS),
      new Family("metrics.timer.debug.enabled", METRICS),
      new Family("job.logged.store.base.dir", STORE_DIRS),
      new Family("job.non-logged.store.base.dir", STORE_DIRS),
      new Family("task.drop.deserialization.errors", NOT_MAPPED
          + "; task.error.policy=skip skips what fails, counted and logged"),
      new Family("task.drop.producer.errors", NOT_MAPPED),
      new Family("task.ignore.producer.errors", NOT_MAPPED),
      new Family("task.async.commit", NOT_MAPPED + "; task.commit.background=true is the default"),
      new Family("task.max.idle.ms", NOT_MAPPED),
      new Family("task.transactional.state.", NOT_MAPPED),
      new Family("job.container.single.thread.mode", NOT_MAPPED),
      new Family("job.standbytasks.replication.factor", NOT_MAPPED
          + "; with job.coordinator=kafka, job.standby.replicas keeps copies of stores"),
      new Family("job.checkpoint.validation.enabled", NOT_MAPPED));

  /** The first segments of Millrace's and Samza's keys; a key under any other is the job's own. */
  private static final java.util.Set<String> NAMESPACES = java.util.Set.of("job", "task",
      "systems", "streams", "stores", "serializers", "metrics", "app", "yarn", "cluster-manager");

  private IgnoredKeys() {}

  /** Notes every ignored key of the configuration. */
  static void note(JobConfig config, KeyTranslation t) {
    // Millrace's own job.coordinator=kafka makes job.coordinator.* its keys; otherwise Samza's.
    boolean millraceCoordinator = config.get("job.coordinator") != null;
    for (String key : config.asMap().keySet()) {
      if (t.consumed(key)) {
        continue;
      }
      int dot = key.indexOf('.');
      if (!NAMESPACES.contains(dot < 0 ? key : key.substring(0, dot))) {
        // Samza lets a job keep its own settings in its file, for its task's Config.
        t.ignore(key, "the job's own keys: its task reads them from its Config, Millrace does not");
        continue;
      }
      if (key.startsWith("job.coordinator.") && !millraceCoordinator) {
        t.ignore(key, COORDINATOR);
        continue;
      }
      for (Family family : FAMILIES) {
        if (family.matches(key)) {
          t.ignore(key, family.why());
          break;
        }
      }
    }
  }
}
