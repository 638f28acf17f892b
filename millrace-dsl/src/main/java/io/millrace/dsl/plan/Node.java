package io.millrace.dsl.plan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One operator of a pipeline, where it sits and what follows it. Its {@link #path} says where it
 * is (e.g. {@code views/filter/map}): messages name an operator by it, and, being made of the
 * pipeline's shape rather than a counter, it is the same in every process that builds the
 * pipeline. Stores and streams are never named from it: their names are the user's.
 */
public final class Node {
  private final Op op;
  private final String path;
  private final boolean keyChanged;
  private final List<Node> children = new ArrayList<>();
  private final List<Node> parents = new ArrayList<>();
  private final List<Node> reads = new ArrayList<>();

  Node(Op op, String path, boolean keyChanged) {
    this.op = op;
    this.path = path;
    this.keyChanged = keyChanged;
  }

  /** What the node does. */
  public Op op() {
    return op;
  }

  /** Where it is in the pipeline, for messages. */
  public String path() {
    return path;
  }

  /**
   * Whether records may have left the partition their key would choose: a key was changed on
   * the way here, so grouping by it needs a repartition first.
   */
  public boolean keyChanged() {
    return keyChanged;
  }

  /** The nodes its records go to, in the order they were added. */
  public List<Node> children() {
    return Collections.unmodifiableList(children);
  }

  /** The operator in a message: {@code map at views/filter/map}. */
  public String describe() {
    return op.kind() + " at " + path;
  }

  /** The nodes whose records come here. */
  public List<Node> parents() {
    return Collections.unmodifiableList(parents);
  }

  /**
   * The nodes whose state this one reads without taking their records (a stream-table join reads
   * the table's store): their inputs must be co-partitioned with its own.
   */
  public List<Node> reads() {
    return Collections.unmodifiableList(reads);
  }

  void addChild(Node child) {
    children.add(child);
    child.parents.add(this);
  }

  void addRead(Node read) {
    reads.add(read);
  }
}
