package io.millrace.kafka.dev;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.common.Uuid;

/**
 * The main class of a development broker's JVM: formats the log directory for KRaft the first
 * time (what {@code kafka-storage.sh format} does), then runs the broker ({@code kafka.Kafka}).
 * Formatting in the same JVM saves a second JVM start (about 2 s). Runs only in the child JVM that
 * {@link DevBroker} starts, whose classpath holds the broker's jars.
 */
public final class BrokerMain {
  private BrokerMain() {}

  /** {@code BrokerMain <server.properties>}. */
  public static void main(String[] args) throws IOException {
    Path config = Path.of(args[0]);
    Properties props = new Properties();
    try (InputStream in = Files.newInputStream(config)) {
      props.load(in);
    }
    Path logDir = Path.of(props.getProperty("log.dirs"));
    if (!Files.exists(logDir.resolve("meta.properties"))) {
      int code = kafka.tools.StorageTool.execute(new String[] {
          "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()}, System.out);
      if (code != 0) {
        System.err.println("formatting " + logDir + " for KRaft failed with code " + code);
        System.exit(1);
      }
    }
    kafka.Kafka.main(new String[] {config.toString()});
  }
}
