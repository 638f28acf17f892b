package io.millrace.core.job;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.system.SystemFactory;
import io.millrace.core.system.file.FileSystemFactory;
import io.millrace.core.system.memory.MemorySystemFactory;
import java.lang.reflect.InvocationTargetException;
import java.util.ServiceLoader;

/** Finds a system's factory: a built-in by name, or a class named in {@code systems.<name>.factory}. */
final class Systems {
  private Systems() {}

  static SystemFactory factory(JobConfig config, String system) {
    String key = "systems." + system + ".factory";
    String name = config.get(key, system);
    switch (name) {
      case "memory":
        return new MemorySystemFactory();
      case "file":
        return new FileSystemFactory();
      default:
        break;
    }
    for (SystemFactory found : ServiceLoader.load(SystemFactory.class,
        Thread.currentThread().getContextClassLoader())) {
      if (name.equals(found.shortName())) {
        return found;
      }
    }
    try {
      Class<?> type = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
      if (!SystemFactory.class.isAssignableFrom(type)) {
        throw new ConfigException("bad value '" + name + "' for " + key
            + ": not a SystemFactory; expected memory, file or a SystemFactory class name");
      }
      return (SystemFactory) type.getDeclaredConstructor().newInstance();
    } catch (ClassNotFoundException e) {
      String hint = config.get(key) == null
          ? "system '" + system + "' is not built in: set " + key + " to memory, file, kafka "
              + "(with millrace-kafka on the classpath) or a SystemFactory class name"
          : "bad value '" + name + "' for " + key + ": no such class; expected memory, file or a "
              + "SystemFactory class name";
      throw new ConfigException(hint);
    } catch (NoSuchMethodException | InstantiationException | IllegalAccessException
        | InvocationTargetException e) {
      throw new ConfigException("cannot create system factory " + name + " for " + key + ": " + e);
    }
  }
}
