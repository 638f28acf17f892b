package io.millrace.kafka;

import io.millrace.core.coordinate.JobCoordinatorContract;
import io.millrace.core.testing.TestCoordinatorContext;
import io.millrace.kafka.coordinate.KafkaCoordinatorFactory;
import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.spi.coordinator.JobCoordinator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The coordinator contract on {@code job.coordinator=kafka}, against the test broker: each test's
 * job has a group and an input topic of its own; each coordinator is a process of that job.
 */
class KafkaCoordinatorContractTest extends JobCoordinatorContract {
  private final String topic = KafkaTestSupport.topic("coordinator-contract");
  private final String job = "coordinator-contract-" + topic;
  private int tasks = -1;

  @Override
  protected JobCoordinator newCoordinator(int tasks, int containers) {
    String bootstrap = TestBroker.shared().bootstrapServers();
    if (this.tasks < 0) {
      this.tasks = tasks;
      TestBroker.createTopic(bootstrap, topic, tasks);
    }
    Map<String, String> config = new HashMap<>();
    config.put("job.name", job);
    config.put("job.coordinator", "kafka");
    config.put("job.container.count", Integer.toString(containers));
    config.put("task.inputs", "in");
    config.put("streams.in.system", "kafka");
    config.put("streams.in.physical.name", topic);
    config.put("systems.kafka.bootstrap.servers", bootstrap);
    CoordinatorContext context = TestCoordinatorContext.of(job, config, containers, tasks,
        List.of(new CoordinatorContext.Input("in", "kafka", topic, tasks,
            Map.of("bootstrap.servers", bootstrap))));
    KafkaCoordinatorFactory factory = new KafkaCoordinatorFactory();
    factory.validate(context);
    return factory.coordinator(context);
  }

  @Override
  protected boolean sharesAmongProcesses() {
    return true;
  }
}
