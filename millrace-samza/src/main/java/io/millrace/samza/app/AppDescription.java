package io.millrace.samza.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.samza.application.descriptors.TaskApplicationDescriptor;
import org.apache.samza.config.Config;
import org.apache.samza.context.ApplicationContainerContextFactory;
import org.apache.samza.context.ApplicationTaskContextFactory;
import org.apache.samza.metrics.MetricsReporterFactory;
import org.apache.samza.runtime.ProcessorLifecycleListenerFactory;
import org.apache.samza.system.descriptors.InputDescriptor;
import org.apache.samza.system.descriptors.OutputDescriptor;
import org.apache.samza.system.descriptors.SystemDescriptor;
import org.apache.samza.table.descriptors.TableDescriptor;
import org.apache.samza.task.TaskFactory;

/**
 * What a {@code TaskApplication}'s {@code describe} declares: its task factory, input and output
 * streams, default system, and what Millrace does not run (noted or refused by
 * {@link TaskApplications}).
 */
@SuppressWarnings({"rawtypes", "unchecked"}) // Samza's descriptor interfaces are raw
final class AppDescription implements TaskApplicationDescriptor {
  private final Config config;
  TaskFactory<?> taskFactory;
  final List<InputDescriptor<?, ?>> inputs = new ArrayList<>();
  final List<OutputDescriptor<?, ?>> outputs = new ArrayList<>();
  SystemDescriptor<?> defaultSystem;
  final List<String> unsupported = new ArrayList<>();
  final List<String> ignored = new ArrayList<>();

  AppDescription(Config config) {
    this.config = config;
  }

  @Override
  public Config getConfig() {
    return config;
  }

  @Override
  public TaskApplicationDescriptor withTaskFactory(TaskFactory factory) {
    this.taskFactory = factory;
    return this;
  }

  @Override
  public TaskApplicationDescriptor withInputStream(InputDescriptor descriptor) {
    inputs.add(descriptor);
    return this;
  }

  @Override
  public TaskApplicationDescriptor withOutputStream(OutputDescriptor descriptor) {
    outputs.add(descriptor);
    return this;
  }

  @Override
  public TaskApplicationDescriptor withTable(TableDescriptor descriptor) {
    unsupported.add("withTable(" + descriptor.getTableId() + "): Samza's tables are not supported"
        + " yet; declare a store with stores.<name>.* and reach it with getStore");
    return this;
  }

  @Override
  public TaskApplicationDescriptor withDefaultSystem(SystemDescriptor descriptor) {
    this.defaultSystem = descriptor;
    return this;
  }

  @Override
  public TaskApplicationDescriptor withApplicationContainerContextFactory(
      ApplicationContainerContextFactory factory) {
    unsupported.add("withApplicationContainerContextFactory: application contexts are not"
        + " supported yet");
    return this;
  }

  @Override
  public TaskApplicationDescriptor withApplicationTaskContextFactory(
      ApplicationTaskContextFactory factory) {
    unsupported.add("withApplicationTaskContextFactory: application contexts are not supported"
        + " yet");
    return this;
  }

  @Override
  public TaskApplicationDescriptor withProcessorLifecycleListenerFactory(
      ProcessorLifecycleListenerFactory factory) {
    ignored.add("withProcessorLifecycleListenerFactory: Samza's processor life cycle has no"
        + " counterpart here (a task's init and close are called)");
    return this;
  }

  @Override
  public TaskApplicationDescriptor withMetricsReporterFactories(
      Map<String, MetricsReporterFactory> factories) {
    ignored.add("withMetricsReporterFactories " + new java.util.TreeSet<>(factories.keySet())
        + ": Samza's metrics reporters are not run; the task's metrics go to Millrace's own");
    return this;
  }
}
