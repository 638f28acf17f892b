package io.millrace.core.metrics;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exposes each metric group as one MBean, {@code io.millrace:job=<job>,group=<group>}, whose
 * attributes are the group's metrics, read live when a JMX client asks. A group that appears
 * later (a task's, when the task starts) gets its MBean then.
 */
public final class JmxReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JmxReporter.class);
  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  private final DefaultMetricsRegistry registry;
  private final Supplier<Map<String, Map<String, Long>>> snapshot;
  private final String job;
  private final List<ObjectName> registered = new ArrayList<>();
  private final Consumer<String> onNewGroup = this::registerLater;
  private boolean closed;

  /** Registers the groups that exist now, and each one created later. */
  public JmxReporter(DefaultMetricsRegistry registry, String job) {
    this(registry, registry::snapshot, job);
  }

  /**
   * As {@link #JmxReporter(DefaultMetricsRegistry, String)}, the values read from
   * {@code snapshot} (the registry's, as the job's reporters show it: see
   * {@code io.millrace.core.http.ReportedMetrics}).
   */
  public JmxReporter(DefaultMetricsRegistry registry,
      Supplier<Map<String, Map<String, Long>>> snapshot, String job) {
    this.registry = registry;
    this.snapshot = snapshot;
    this.job = job;
    registry.addGroupListener(onNewGroup);
    refresh();
  }

  /** Registers an MBean for every group not yet registered. */
  public synchronized void refresh() {
    for (String group : registry.groupNames()) {
      register(group);
    }
  }

  private synchronized void register(String group) {
    if (closed) {
      return;
    }
    try {
      ObjectName name = new ObjectName("io.millrace", nameTable(group));
      if (!server.isRegistered(name)) {
        server.registerMBean(new GroupBean(group), name);
        registered.add(name);
      }
    } catch (JMException e) {
      throw new IllegalStateException("cannot register metrics group " + group + " in JMX", e);
    }
  }

  /** A group created while the job runs, on the thread that created it: never throws there. */
  private void registerLater(String group) {
    try {
      register(group);
    } catch (RuntimeException e) {
      LOG.warn("metrics group {} is not in JMX: {}", group, e.getMessage());
    }
  }

  private java.util.Hashtable<String, String> nameTable(String group) {
    java.util.Hashtable<String, String> table = new java.util.Hashtable<>();
    table.put("job", ObjectName.quote(job));
    table.put("group", ObjectName.quote(group));
    return table;
  }

  @Override
  public synchronized void close() {
    closed = true;
    registry.removeGroupListener(onNewGroup);
    for (ObjectName name : registered) {
      try {
        server.unregisterMBean(name);
      } catch (JMException ignored) {
        // Already gone: nothing to release.
      }
    }
    registered.clear();
  }

  private final class GroupBean implements DynamicMBean {
    private final String group;

    GroupBean(String group) {
      this.group = group;
    }

    private Map<String, Long> values() {
      return snapshot.get().getOrDefault(group, Map.of());
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
      Long value = values().get(attribute);
      if (value == null) {
        throw new AttributeNotFoundException(attribute);
      }
      return value;
    }

    @Override
    public void setAttribute(Attribute attribute) {
      throw new UnsupportedOperationException("metrics are read-only");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
      Map<String, Long> values = values();
      AttributeList list = new AttributeList();
      for (String attribute : attributes) {
        Long value = values.get(attribute);
        if (value != null) {
          list.add(new Attribute(attribute, value));
        }
      }
      return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
      return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
      throw new UnsupportedOperationException("no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
      List<MBeanAttributeInfo> attributes = new ArrayList<>();
      for (String name : values().keySet()) {
        attributes.add(new MBeanAttributeInfo(name, "long", name, true, false, false));
      }
      return new MBeanInfo(GroupBean.class.getName(), "Millrace metrics group " + group,
          attributes.toArray(new MBeanAttributeInfo[0]), null, null, null);
    }
  }
}
