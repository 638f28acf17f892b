package io.millrace.dsl.config;

import io.millrace.api.config.ConfigException;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.plan.Plan;
import java.lang.reflect.InvocationTargetException;

/** Loads an application class and describes its pipeline. */
public final class Applications {
  private Applications() {}

  /**
   * Whether {@code className} is a {@link StreamApplication} the loader can load; false (never
   * an exception) for anything else, which may be another translator's job.
   */
  public static boolean isApplication(String className, ClassLoader loader) {
    try {
      return StreamApplication.class.isAssignableFrom(Class.forName(className, false, loader));
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * The plan {@code className} describes.
   *
   * @param key the key that named the class, for messages
   * @throws ConfigException if the class cannot be made, or its description is wrong
   */
  public static Plan describe(String key, String className, ClassLoader loader) {
    StreamApplication app;
    try {
      Class<?> type = Class.forName(className, true, loader);
      if (!StreamApplication.class.isAssignableFrom(type)) {
        throw new ConfigException("bad value '" + className + "' for " + key + ": it is not a "
            + StreamApplication.class.getName());
      }
      app = (StreamApplication) type.getDeclaredConstructor().newInstance();
    } catch (ClassNotFoundException e) {
      throw new ConfigException("bad value '" + className + "' for " + key + ": no such class");
    } catch (InvocationTargetException e) {
      throw new ConfigException("cannot create " + className + " (" + key + "): its constructor "
          + "threw " + e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new ConfigException("cannot create " + className + " (" + key + "): it needs a "
          + "public no-argument constructor (" + e + ")");
    }
    StreamGraph graph = new StreamGraph();
    app.describe(graph);
    if (graph.plan().sources().isEmpty()) {
      throw new ConfigException(className + " (" + key + ") describes no pipeline: read a stream "
          + "with graph.stream(\"<id>\")");
    }
    return graph.plan();
  }
}
