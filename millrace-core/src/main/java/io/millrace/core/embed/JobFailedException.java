package io.millrace.core.embed;

/** A job that ran and failed; the cause is the failure of its first failed container. */
public final class JobFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String jobName;

  JobFailedException(String jobName, Throwable cause) {
    super("job " + jobName + " failed: " + cause.getMessage(), cause);
    this.jobName = jobName;
  }

  /** The job's name. */
  public String jobName() {
    return jobName;
  }
}
