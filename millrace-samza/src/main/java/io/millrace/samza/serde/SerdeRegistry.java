package io.millrace.samza.serde;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.samza.config.MapConfig;
import org.apache.samza.serializers.Serde;
import org.apache.samza.serializers.SerdeFactory;

/**
 * Samza's serdes by name, as Samza resolves them: {@code serializers.registry.<name>.class} names
 * a {@link SerdeFactory}, and a name without one is one of Samza's predefined serdes. Each name's
 * serde is made once (per task) and shared by every stream and store that names it.
 */
public final class SerdeRegistry {
  /** Samza's predefined serde names and their factories (Samza's SerializerConfig). */
  static final Map<String, String> PREDEFINED = new TreeMap<>(Map.of(
      "byte", "org.apache.samza.serializers.ByteSerdeFactory",
      "bytebuffer", "org.apache.samza.serializers.ByteBufferSerdeFactory",
      "double", "org.apache.samza.serializers.DoubleSerdeFactory",
      "integer", "org.apache.samza.serializers.IntegerSerdeFactory",
      // In samza-core, not samza-api: a job that uses it brings samza-core on its class path.
      "json", "org.apache.samza.serializers.JsonSerdeFactory",
      "long", "org.apache.samza.serializers.LongSerdeFactory",
      "serializable", "org.apache.samza.serializers.SerializableSerdeFactory",
      "string", "org.apache.samza.serializers.StringSerdeFactory"));

  private final JobConfig config;
  private final ClassLoader loader;
  private final Map<String, Serde<Object>> serdes = new HashMap<>();

  /**
   * @param config the Samza job's configuration (the registry reads {@code serializers.registry.*})
   * @param loader the class loader of the job's classes
   */
  public SerdeRegistry(JobConfig config, ClassLoader loader) {
    this.config = config;
    this.loader = loader;
  }

  /** The key that registers serde {@code name}. */
  public static String factoryKey(String name) {
    return "serializers.registry." + name + ".class";
  }

  /**
   * Checks that {@code name} (the value of {@code usedBy}) names a serde whose factory is on the
   * class path, without making it.
   *
   * @throws ConfigException naming the key and the value
   */
  public void check(String usedBy, String name) {
    if (config.get(instanceKey(name)) == null) {
      factory(usedBy, name);
    }
  }

  /** The key of a serde registered as a serialized instance (a TaskApplication's serdes). */
  static String instanceKey(String name) {
    return "serializers.registry." + name + ".samza.serialized.instance";
  }

  /**
   * The serde called {@code name}, made on first use.
   *
   * @param usedBy the key whose value {@code name} is, for the error
   * @throws ConfigException naming the key and the value if it cannot be made
   */
  public synchronized Serde<Object> serde(String usedBy, String name) {
    Serde<Object> serde = serdes.get(name);
    if (serde == null) {
      String instance = config.get(instanceKey(name));
      serde = instance != null ? deserialize(name, instance)
          : factory(usedBy, name).getSerde(name, new MapConfig(config.asMap()));
      serdes.put(name, serde);
    }
    return serde;
  }

  /**
   * A serde Samza's SerializableSerde wrote (Java serialization, in Base64), read with the job's
   * class loader: Samza's own reader would look for the classes with samza-api's, which does
   * not see the job's jars.
   */
  @SuppressWarnings("unchecked")
  private Serde<Object> deserialize(String name, String instance) {
    byte[] bytes = Base64.getDecoder().decode(instance);
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
      @Override
      protected Class<?> resolveClass(ObjectStreamClass desc)
          throws IOException, ClassNotFoundException {
        return Class.forName(desc.getName(), false, loader);
      }
    }) {
      return (Serde<Object>) in.readObject();
    } catch (IOException | ClassNotFoundException | ClassCastException e) {
      throw new ConfigException("cannot read serde " + name + " (" + instanceKey(name) + " in "
          + config.source() + "): " + e);
    }
  }

  @SuppressWarnings("unchecked")
  private SerdeFactory<Object> factory(String usedBy, String name) {
    String key = factoryKey(name);
    String className = config.get(key);
    if (className == null) {
      className = PREDEFINED.get(name);
      if (className == null) {
        throw config.bad(usedBy, name, "the name of a serde: register it with " + key
            + "=<a Samza SerdeFactory class>, or use one of Samza's predefined serdes "
            + String.join(", ", PREDEFINED.keySet()));
      }
      key = usedBy;
    }
    Class<?> type;
    try {
      type = Class.forName(className, true, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      if (key.equals(usedBy)) {
        throw new ConfigException("serde '" + name + "' (" + usedBy + " in " + config.source()
            + ") is Samza's predefined " + className + ", which is not on the job's class path:"
            + " give samza-core's jar with --classpath, or register another with "
            + factoryKey(name) + (name.equals("json")
                ? " (org.apache.samza.serializers.JsonSerdeV2Factory is in samza-api)" : ""));
      }
      throw config.bad(key, className, "a Samza SerdeFactory class on the job's class path"
          + " (no class " + className + "; give the job's jars with --classpath)");
    }
    if (!SerdeFactory.class.isAssignableFrom(type)) {
      throw config.bad(key, className,
          "a Samza SerdeFactory (org.apache.samza.serializers.SerdeFactory)");
    }
    try {
      return (SerdeFactory<Object>) type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new ConfigException("cannot create serde factory " + className + " (" + key + " in "
          + config.source() + "): it needs a public no-argument constructor (" + e + ")");
    }
  }
}
