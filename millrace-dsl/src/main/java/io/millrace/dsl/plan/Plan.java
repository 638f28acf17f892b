package io.millrace.dsl.plan;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A pipeline as its application described it: sources, the operators after them, and the
 * stores and streams they name. Built once by the translator and again by each task, from the
 * same code: {@link #digest} is how a task checks that it built the same plan.
 *
 * <p>Not thread-safe: built on one thread, then only read.
 */
public final class Plan {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  private final Map<String, Node> sources = new LinkedHashMap<>();
  private final Map<String, Node> stores = new LinkedHashMap<>();
  private final Map<String, StoreDef> storeDefs = new LinkedHashMap<>();
  private final Map<String, Node> groups = new LinkedHashMap<>();
  private final Map<String, Node> named = new LinkedHashMap<>();
  private final Set<String> outputs = new LinkedHashSet<>();
  private final List<Node> sinks = new ArrayList<>();

  /**
   * Adds a source for a stream of the job.
   *
   * @throws ConfigException if the stream is read twice or its id is not a name
   */
  public Node source(Op.Source source) {
    checkName(source.streamId(), "a source's stream id");
    if (sources.containsKey(source.streamId())) {
      throw new ConfigException("stream " + source.streamId() + " is read twice in the pipeline: "
          + "read it once and use the stream it gives wherever it is needed");
    }
    Node node = new Node(source, source.streamId(), false);
    sources.put(source.streamId(), node);
    return node;
  }

  /** Adds {@code op} after {@code parents} (two or more: a merge). */
  public Node add(Op op, String path, boolean keyChanged, Node... parents) {
    Node node = new Node(op, path, keyChanged);
    for (Node parent : parents) {
      parent.addChild(node);
    }
    if (op instanceof Op.Sink sink) {
      sinks.add(node);
      outputs.add(sink.streamId());
    }
    if (op instanceof Op.WindowAggregate w && w.lateStream() != null) {
      outputs.add(w.lateStream());
    }
    Set<String> names = new LinkedHashSet<>();
    op.stores().forEach(store -> names.add(store.name()));
    if (op.group() != null) {
      names.add(op.group());
    }
    for (String name : names) {
      Node other = named.get(name);
      if (other != null) {
        throw new ConfigException((op.stores().stream().anyMatch(d -> d.name().equals(name))
 ? "store " + name + " is named by" : "the name " + name + " is given to")
            + " two operators, " + other.describe() + " and " + node.describe()
            + ": give each its own name");
      }
      named.put(name, node);
    }
    for (StoreDef store : op.stores()) {
      stores.put(store.name(), node);
      storeDefs.put(store.name(), store);
    }
    if (op.group() != null) {
      groups.put(op.group(), node);
    }
    return node;
  }

  /**
   * Checks a name the user gave a store or stream.
   *
   * @throws ConfigException naming {@code what} if it is missing or not a name
   */
  public static void checkName(String name, String what) {
    if (name == null || name.isBlank()) {
      throw new ConfigException(what + " is missing: state and streams are named by you, never "
          + "by a counter, so that changing the pipeline cannot orphan them");
    }
    if (!NAME.matcher(name).matches()) {
      throw new ConfigException("bad name '" + name + "' for " + what
          + ": expected letters, digits, '.', '_' and '-', starting with a letter or digit");
    }
  }

  /**
   * Notes that {@code node} reads the state {@code read} keeps (a stream-table join, its table):
   * their inputs must be co-partitioned.
   */
  public void addRead(Node node, Node read) {
    node.addRead(read);
  }

  /**
   * The serde of the values that come out of {@code node}, where the pipeline knows it: a
   * source's or repartition's stated value serde, through operators that keep the value
   * ({@code filter}, {@code peek}, {@code selectKey}, a split's branch, a merge of streams that
   * agree); null otherwise.
   */
  public static Serde<?> valueSerdeAt(Node node) {
    Op op = node.op();
    if (op instanceof Op.Source s) {
      return s.valueSerde();
    }
    if (!(op instanceof Op.Filter || op instanceof Op.Peek || op instanceof Op.SelectKey
        || op instanceof Op.Split || op instanceof Op.Pass) || node.parents().isEmpty()) {
      return null;
    }
    Serde<?> found = null;
    for (Node parent : node.parents()) {
      Serde<?> serde = valueSerdeAt(parent);
      if (serde == null || found != null && found.getClass() != serde.getClass()) {
        return null;
      }
      found = serde;
    }
    return found;
  }

  /** The sources by stream id, in the order they were added. */
  public Map<String, Node> sources() {
    return Collections.unmodifiableMap(sources);
  }

  /** The stateful nodes by store name. */
  public Map<String, Node> stores() {
    return Collections.unmodifiableMap(stores);
  }

  /** Every store of the pipeline by name, with what it holds. */
  public Map<String, StoreDef> storeDefs() {
    return Collections.unmodifiableMap(storeDefs);
  }

  /**
   * The streams each stateful operator reads by key, by the operator's name (its store's or
   * join's), where there are two or more: the inputs that reach it without a repartition (merged
   * streams, the two sides of a join, a table it reads). A key's records and state meet in one
   * task only if those streams are co-partitioned: as many partitions, a key in the same one.
   */
  public Map<String, Set<String>> copartitionGroups() {
    Map<String, Set<String>> result = new LinkedHashMap<>();
    for (Map.Entry<String, Node> e : groups.entrySet()) {
      Set<String> streams = new LinkedHashSet<>();
      sourcesOf(e.getValue(), streams, Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
      if (streams.size() > 1) {
        result.put(e.getKey(), streams);
      }
    }
    return result;
  }

  /** The streams whose records reach {@code node}, repartitions included (not what lies before them). */
  public static Set<String> sourcesOf(Node node) {
    Set<String> streams = new LinkedHashSet<>();
    sourcesOf(node, streams, Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    return streams;
  }

  private static void sourcesOf(Node node, Set<String> streams, Set<Node> seen) {
    if (!seen.add(node)) {
      return;
    }
    if (node.op() instanceof Op.Source s) {
      streams.add(s.streamId());
    }
    for (Node parent : node.parents()) {
      sourcesOf(parent, streams, seen);
    }
    for (Node read : node.reads()) {
      sourcesOf(read, streams, seen);
    }
  }

  /** The streams the pipeline writes, in the order it names them (repartitions included). */
  public Set<String> outputs() {
    return Collections.unmodifiableSet(outputs);
  }

  /** The nodes that write to streams. */
  public List<Node> sinks() {
    return Collections.unmodifiableList(sinks);
  }

  /**
   * The plan's shape as text, one line per node in depth-first order: its path, its kind, and
   * the stores, streams, serdes and windows it names. Two builds of one pipeline give the same
   * text; a change that would move state gives another.
   */
  public String describe() {
    StringBuilder text = new StringBuilder();
    Set<Node> seen = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (Node source : sources.values()) {
      describe(source, text, seen);
    }
    return text.toString();
  }

  /** A short fingerprint of {@link #describe()}. */
  public String digest() {
    String text = describe();
    long h = 1125899906842597L; // a 64-bit string hash: stable across JVMs, unlike hashCode's 32
    for (int i = 0; i < text.length(); i++) {
      h = 31 * h + text.charAt(i);
    }
    return Long.toHexString(h);
  }

  private static void describe(Node node, StringBuilder text, Set<Node> seen) {
    if (!seen.add(node)) {
      return;
    }
    text.append(node.path()).append(' ').append(node.op().kind());
    Op op = node.op();
    if (op instanceof Op.Source s) {
      text.append(' ').append(s.streamId()).append(serdes(s.keySerde(), s.valueSerde()));
    } else if (op instanceof Op.Sink s) {
      text.append(' ').append(s.streamId()).append(serdes(s.keySerde(), s.valueSerde()));
    } else if (op instanceof Op.WindowAggregate w) {
      text.append(" store ").append(w.store().name())
          .append(serdes(w.store().keySerde(), w.store().valueSerde())).append(' ')
          .append(w.windows()).append(" late ").append(w.lateStream())
          .append(serdes(w.lateKeySerde(), w.lateValueSerde()));
    } else if (op instanceof Op.TableGroupBy g) {
      text.append(serdes(g.groupKeySerde(), g.groupValueSerde()));
    } else if (op instanceof Op.TableAggregate a) {
      text.append(" store ").append(a.store().name())
          .append(serdes(a.store().keySerde(), a.store().valueSerde()))
          .append(" changes of").append(serdes(null, a.valueSerde()));
    } else if (op instanceof Op.MapAsync m) {
      text.append(" in flight ").append(m.maxInFlight());
    } else if (op instanceof Op.StreamTableJoin j) {
      text.append(' ').append(j.name()).append(" table ").append(j.tableStore());
    } else if (op instanceof Op.TableTableJoin j) {
      text.append(" store ").append(j.store().name())
          .append(serdes(j.store().keySerde(), j.store().valueSerde())).append(' ')
          .append(j.leftStore()).append(' ').append(j.rightStore());
    } else if (op instanceof Op.StreamStreamJoin j) {
      text.append(' ').append(j.name()).append(' ').append(j.windows());
      for (StoreDef store : j.stores()) {
        text.append(" store ").append(store.name())
            .append(serdes(store.keySerde(), store.valueSerde()));
      }
    } else {
      for (StoreDef store : op.stores()) {
        text.append(" store ").append(store.name())
            .append(serdes(store.keySerde(), store.valueSerde()));
      }
    }
    text.append('\n');
    for (Node child : node.children()) {
      describe(child, text, seen);
    }
  }

  private static String serdes(Object key, Object value) {
    return " (" + (key == null ? "-" : key.getClass().getName()) + ", "
        + (value == null ? "-" : value.getClass().getName()) + ")";
  }
}
