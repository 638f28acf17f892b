package io.millrace.core.job;

import io.millrace.api.StreamPartition;
import io.millrace.api.config.JobConfig;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.core.checkpoint.ImportedCheckpoints;
import io.millrace.core.config.CoreKeys;
import io.millrace.spi.checkpoint.CheckpointImport;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemFactory;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a job's {@code task.checkpoint.import} at plan time: only when the job's own checkpoint
 * store holds nothing for it, so an import is read once, before the job's first commit here.
 */
final class CheckpointImports {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointImports.class);

  private CheckpointImports() {}

  /** The import the job names, checked; null if it names none. */
  static CheckpointImport of(JobConfig config, ClassLoader loader) {
    String name = config.get(CoreKeys.CHECKPOINT_IMPORT);
    if (name == null) {
      return null;
    }
    try {
      Class<?> type = Class.forName(name, true, loader);
      if (!CheckpointImport.class.isAssignableFrom(type)) {
        throw config.bad(CoreKeys.CHECKPOINT_IMPORT, name,
            "a class implementing " + CheckpointImport.class.getName());
      }
      return (CheckpointImport) type.getConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      throw config.bad(CoreKeys.CHECKPOINT_IMPORT, name, "a class on the job's class path with a"
          + " public no-argument constructor (" + e + ")");
    }
  }

  /**
   * The store to run the job with: {@code store} itself, or, when it holds nothing and the import
   * finds offsets, the store under the imported offsets.
   *
   * @param own what {@code store} holds for the job
   */
  static CheckpointStore apply(CheckpointImport importer, CheckpointStore store,
      Map<StreamPartition, Long> own, JobConfig config, String jobName,
      Map<String, SystemFactory> factories, Map<String, SystemAdmin> admins,
      MetricsRegistry metrics) {
    if (importer == null) {
      return store;
    }
    if (!own.isEmpty()) {
      LOG.info("job {} has checkpoints of its own: {} is not read", jobName,
          importer.describe(config));
      return store;
    }
    Map<StreamPartition, Long> imported = importer.read(new CheckpointImport.Source() {
      @Override
      public JobConfig config() {
        return config;
      }

      @Override
      public SystemAdmin admin(String system) {
        SystemAdmin admin = admins.get(system);
        if (admin == null) {
          throw new IllegalArgumentException("the job has no system named " + system);
        }
        return admin;
      }

      @Override
      public SystemConsumer consumer(String system) {
        SystemFactory factory = factories.get(system);
        if (factory == null) {
          throw new IllegalArgumentException("the job has no system named " + system);
        }
        return factory.consumer(new DefaultSystemContext(system, jobName, -1, config, metrics));
      }
    });
    if (imported.isEmpty()) {
      LOG.info("job {} has no checkpoint of its own, nor any in {}: its inputs start at their"
          + " offset.default", jobName, importer.describe(config));
      return store;
    }
    LOG.info("job {} has no checkpoint of its own: resuming {} partition(s) from {}: {}", jobName,
        imported.size(), importer.describe(config), new java.util.TreeMap<>(
            imported.entrySet().stream().collect(java.util.stream.Collectors.toMap(
                e -> e.getKey().toString(), Map.Entry::getValue))));
    return new ImportedCheckpoints(store, imported);
  }
}
