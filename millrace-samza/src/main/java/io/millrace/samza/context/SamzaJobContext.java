package io.millrace.samza.context;

import org.apache.samza.config.Config;
import org.apache.samza.context.JobContext;
import org.apache.samza.job.model.JobModel;

/** The job's Samza configuration, name and id, as the Samza job's keys give them. */
final class SamzaJobContext implements JobContext {
  private final Config config;
  private final String name;
  private final String id;

  SamzaJobContext(Config config, String name, String id) {
    this.config = config;
    this.name = name;
    this.id = id;
  }

  @Override
  public Config getConfig() {
    return config;
  }

  @Override
  public String getJobName() {
    return name;
  }

  @Override
  public String getJobId() {
    return id;
  }

  /** Samza's job model is its coordinator's; Millrace has none to give. */
  @Override
  public JobModel getJobModel() {
    throw new UnsupportedOperationException("getJobModel: Millrace has no Samza job model"
        + " (its tasks are planned by Millrace's coordinator); docs/samza.md");
  }
}
