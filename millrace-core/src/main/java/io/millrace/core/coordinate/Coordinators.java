package io.millrace.core.coordinate;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.coordinator.CoordinatorFactory;
import io.millrace.core.config.CoreKeys;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Finds the job's coordinator factory ({@code job.coordinator}): {@code local} built in, others by
 * short name through {@link ServiceLoader}, or a {@link CoordinatorFactory} class name.
 */
public final class Coordinators {
  /** The default: this process runs every task. */
  public static final String DEFAULT = "local";

  private Coordinators() {}

  /** The factory {@code job.coordinator} names. */
  public static CoordinatorFactory factory(JobConfig config) {
    String name = config.get(CoreKeys.COORDINATOR, DEFAULT);
    List<String> known = new ArrayList<>(List.of(DEFAULT));
    if (name.equals(DEFAULT)) {
      return new LocalCoordinator.Factory();
    }
    for (CoordinatorFactory found : ServiceLoader.load(CoordinatorFactory.class,
        Thread.currentThread().getContextClassLoader())) {
      if (name.equals(found.shortName())) {
        return found;
      }
      known.add(found.shortName());
    }
    try {
      Class<?> type = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
      if (!CoordinatorFactory.class.isAssignableFrom(type)) {
        throw config.bad(CoreKeys.COORDINATOR, name, "one of " + String.join(", ", known)
            + ", or a CoordinatorFactory class name (" + name + " is not one)");
      }
      return (CoordinatorFactory) type.getDeclaredConstructor().newInstance();
    } catch (ClassNotFoundException e) {
      String hint = name.equals("kafka") ? " (kafka needs millrace-kafka on the classpath)" : "";
      throw config.bad(CoreKeys.COORDINATOR, name, "one of " + String.join(", ", known)
          + ", or a CoordinatorFactory class name" + hint);
    } catch (NoSuchMethodException | InstantiationException | IllegalAccessException
        | InvocationTargetException e) {
      throw new ConfigException("cannot create coordinator factory " + name + " for "
          + CoreKeys.COORDINATOR + ": " + e);
    }
  }
}
