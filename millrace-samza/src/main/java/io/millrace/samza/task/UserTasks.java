package io.millrace.samza.task;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import org.apache.samza.task.AsyncStreamTask;
import org.apache.samza.task.AsyncStreamTaskFactory;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.StreamTaskFactory;
import org.apache.samza.task.TaskFactory;

/**
 * The user's Samza task class ({@code task.class}): a {@link StreamTask} or
 * {@link AsyncStreamTask} with a public no-argument constructor, or a {@link StreamTaskFactory}
 * or {@link AsyncStreamTaskFactory} that makes one per task.
 */
public final class UserTasks {
  private static final String KEY = "task.class";
  private static final String EXPECTED = "a Samza task: a class implementing"
      + " org.apache.samza.task.StreamTask or AsyncStreamTask, or a StreamTaskFactory or"
      + " AsyncStreamTaskFactory";

  private UserTasks() {}

  /** Whether {@code type} is a Samza task or task factory. */
  public static boolean isSamzaTask(Class<?> type) {
    return StreamTask.class.isAssignableFrom(type) || AsyncStreamTask.class.isAssignableFrom(type)
        || StreamTaskFactory.class.isAssignableFrom(type)
        || AsyncStreamTaskFactory.class.isAssignableFrom(type);
  }

  /** Whether the tasks of {@code type} are asynchronous (Samza prefers async where both). */
  public static boolean isAsync(Class<?> type) {
    return AsyncStreamTask.class.isAssignableFrom(type)
        || AsyncStreamTaskFactory.class.isAssignableFrom(type);
  }

  /**
   * Loads and checks {@code task.class}.
   *
   * @throws ConfigException naming the key and the class if it is missing or not a Samza task
   */
  public static Class<?> load(JobConfig config, ClassLoader loader) {
    String name = config.required(KEY);
    Class<?> type;
    try {
      type = Class.forName(name, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw config.bad(KEY, name, EXPECTED + " on the job's class path (no class " + name
          + "; give the job's jars with --classpath)");
    }
    if (!isSamzaTask(type)) {
      throw config.bad(KEY, name, EXPECTED + "; " + type.getName() + " is none of these");
    }
    return type;
  }

  /** A new instance of the user's task, from its factory or its constructor. */
  static Object create(Class<?> type) throws ReflectiveOperationException {
    Object made = type.getDeclaredConstructor().newInstance();
    return made instanceof TaskFactory<?> factory ? factory.createInstance() : made;
  }
}
