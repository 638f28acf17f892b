package io.millrace.samza;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.samza.config.Config;
import org.apache.samza.config.MapConfig;
import org.apache.samza.runtime.ApplicationRunner;

/**
 * Runs a Samza job's properties on Samza's own runtime (samza-core's local application runner),
 * in a child JVM whose class path is Samza 1.8's ({@code millrace-samza-peer}) and the test
 * classes: what the migration test moves over to Millrace. Samza's runner is reached by name,
 * since samza-core is on the child's class path only.
 */
public final class SamzaMain {
  private SamzaMain() {}

  /** {@code args[0]}: the job's properties file. */
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    try (InputStream in = new FileInputStream(args[0])) {
      p.load(in);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + args[0] + ": " + e, e);
    }
    Map<String, String> map = new HashMap<>();
    p.stringPropertyNames().forEach(k -> map.put(k, p.getProperty(k)));
    Config config = new MapConfig(map);
    Class<?> util = Class.forName("org.apache.samza.runtime.ApplicationRunnerUtil");
    Class<?> operation = Class.forName("org.apache.samza.runtime.ApplicationRunnerOperation");
    @SuppressWarnings({"unchecked", "rawtypes"})
    Object run = Enum.valueOf((Class<Enum>) operation, "RUN");
    ApplicationRunner runner = (ApplicationRunner) util
        .getMethod("invoke", Config.class, operation).invoke(null, config, run);
    System.out.println("samza job started");
    runner.waitForFinish();
    System.out.println("samza job finished: " + runner.status());
  }
}
