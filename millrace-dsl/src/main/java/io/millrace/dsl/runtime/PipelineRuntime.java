package io.millrace.dsl.runtime;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.Output;
import io.millrace.api.Serde;
import io.millrace.api.TaskContext;
import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.config.DslSettings;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import io.millrace.dsl.time.TimestampExtractor;
import io.millrace.dsl.time.WatermarkTracker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One task's pipeline at work: a processor per node of the plan, the sources by stream id, the
 * task's watermark and the windowed operators it closes windows of. The loop thread only.
 *
 * <p>A record goes through the pipeline with the watermark as it was before it (so lateness is
 * judged against what came before), then moves its partition's watermark; windows the new
 * watermark closes are emitted at once. The task's clock, for idleness and the wall-clock
 * advance, moves with its ticks ({@link #tick}), scheduled on the container's clock: a test
 * driver's clock drives it as the loop's does.
 */
final class PipelineRuntime {
  private final Emitter emitter = new Emitter();
  private final Map<String, SourceEntry> sources = new HashMap<>();
  private final List<WatermarkListener> windowed = new ArrayList<>();
  private final Map<Node, Object> joins = new IdentityHashMap<>();
  private final Map<Node, Processor> built = new IdentityHashMap<>();
  /** A repartition's records and markers: the sending task ({@code partitionNumber}). */
  static final String FROM = "millrace.dsl.wm.from";
  /** ... and its watermark over what feeds the repartition when it sent them. */
  static final String WATERMARK = "millrace.dsl.wm";
  /** A record that is only a watermark: not passed to the pipeline. */
  static final String MARKER = "millrace.dsl.wm.marker";

  private final TaskContext context;
  private final WatermarkTracker watermark;
  private final int taskCount;
  private final Map<String, RepartitionIn> repartitionIns = new HashMap<>();
  private final List<RepartitionOut> repartitionOuts = new ArrayList<>();
  private final Map<String, Integer> slotOf = new HashMap<>();
  private final long tickMs;
  private long now;

  /**
   * A repartition this task reads: its records come from every task of the job, so its
   * watermark is the lowest of theirs, as each sends it along (none while one has sent none).
   */
  private record RepartitionIn(int slot, Map<Integer, Long> senders) {
    long watermark(int taskCount) {
      if (senders.size() < taskCount) {
        return WatermarkTracker.NONE;
      }
      long min = Long.MAX_VALUE;
      for (long w : senders.values()) {
        min = Math.min(min, w);
      }
      return min;
    }
  }

  /** A repartition this task writes, the slots of the partitions that feed it, what it last sent. */
  private static final class RepartitionOut {
    final Output output;
    final int[] slots;
    long sent = WatermarkTracker.NONE;

    RepartitionOut(Output output, int[] slots) {
      this.output = output;
      this.slots = slots;
    }
  }

  private record SourceEntry(Node node, int partition, TimestampExtractor<Object, Object> extractor,
      Processor[] children) {}

  PipelineRuntime(Plan plan, TaskContext context, DslSettings settings) {
    this.context = context;
    this.tickMs = settings.tickMs();
    this.taskCount = context.taskCount();
    // One watermark slot per source the task reads: a stream with fewer partitions than the
    // job has tasks gives some tasks none of it, and a slot that never fills would hold their
    // windows open forever.
    Set<String> read = new HashSet<>();
    context.inputs().forEach(input -> read.add(input.stream()));
    Map<Node, Integer> slots = new IdentityHashMap<>();
    List<Long> outOfOrder = new ArrayList<>();
    for (Node source : plan.sources().values()) {
      Op.Source op = (Op.Source) source.op();
      if (read.isEmpty() || read.contains(op.streamId())) {
        slotOf.put(op.streamId(), outOfOrder.size());
        if (op.intermediate() && taskCount > 0) {
          repartitionIns.put(op.streamId(), new RepartitionIn(outOfOrder.size(),
              new HashMap<>()));
        }
        slots.put(source, outOfOrder.size());
        outOfOrder.add(op.maxOutOfOrderMs());
      }
    }
    // Before the processors are built: windowed ones read the tracker.
    this.watermark = new WatermarkTracker(
        outOfOrder.stream().mapToLong(Long::longValue).toArray(), settings.idleMs(),
        settings.wallClockAdvance(), 0);
    for (Node source : plan.sources().values()) {
      Op.Source op = (Op.Source) source.op();
      sources.put(op.streamId(), new SourceEntry(source, slots.getOrDefault(source, -1),
          op.extractor(), children(source)));
    }
  }

  /** Whether the pipeline has windows to close, so the clock must be watched. */
  boolean hasWindows() {
    return !windowed.isEmpty();
  }

  long tickMs() {
    return tickMs;
  }

  /** Takes one input record. */
  void process(Envelope envelope, Collector collector) {
    emitter.use(collector);
    SourceEntry source = sources.get(envelope.stream());
    if (source == null) {
      throw new IllegalStateException("no source in the pipeline reads stream "
          + envelope.stream() + " (it reads " + sources.keySet() + ")");
    }
    RepartitionIn in = repartitionIns.get(envelope.stream());
    String from = in == null ? null : envelope.headers().lastString(FROM);
    if (from != null) {
      if (envelope.headers().lastValue(MARKER) == null) {
        Forward.to(source.children, envelope.key(), envelope.value(), envelope.timestamp());
      }
      in.senders.merge(Integer.parseInt(from),
          Long.parseLong(envelope.headers().lastString(WATERMARK)), Math::max);
      long before = watermark.watermark();
      if (watermark.observeWatermark(in.slot, in.watermark(taskCount), now) != before) {
        closeWindows();
      }
      return;
    }
    long timestamp = envelope.timestamp();
    if (source.extractor != null) {
      try {
        timestamp = source.extractor.extract(envelope.key(), envelope.value(), timestamp);
      } catch (RuntimeException e) {
        throw new OperatorException(source.node, "its timestamp extractor failed on "
            + envelope, e);
      }
    }
    Forward.to(source.children, envelope.key(), envelope.value(), timestamp);
    long before = watermark.watermark();
    if (source.partition >= 0 && watermark.observe(source.partition, timestamp, now) != before) {
      closeWindows();
    }
  }

  /** The clock moved on by a tick: idle partitions, the wall-clock advance. */
  void tick(Collector collector) {
    emitter.use(collector);
    now += tickMs;
    long before = watermark.watermark();
    if (watermark.advance(now) != before) {
      closeWindows();
    }
    sendMarkers(false);
  }

  /**
   * Tells every partition of each repartition this task writes how far it has gone (its
   * watermark over what feeds the repartition; every input ended: the end), so a partition it
   * sends no record to is not held back by it, nor run ahead of it.
   */
  private void sendMarkers(boolean ended) {
    if (windowed.isEmpty()) {
      return; // no operator of the pipeline waits for a watermark
    }
    for (RepartitionOut out : repartitionOuts) {
      long wm = ended ? Long.MAX_VALUE : sent(out);
      Headers headers = Headers.of(FROM, Integer.toString(context.partitionNumber()))
          .with(WATERMARK, Long.toString(wm)).with(MARKER, "1");
      for (int p = 0; p < out.output.partitionCount(); p++) {
        emitter.send(out.output, p, null, null, -1, headers);
      }
    }
  }

  private long sent(RepartitionOut out) {
    out.sent = Math.max(out.sent, watermark.watermarkOf(out.slots, now));
    return out.sent;
  }

  /** Every input ended: every window closes. */
  void end(Collector collector) {
    emitter.use(collector);
    watermark.end();
    try {
      closeWindows();
    } finally {
      sendMarkers(true);
    }
  }

  private void closeWindows() {
    long wm = watermark.watermark();
    RuntimeException failure = null;
    for (WatermarkListener w : windowed) {
      try {
        w.advanceTo(wm);
      } catch (RuntimeException e) { // the others still close theirs: nothing is emitted twice
        if (failure == null) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private Processor[] children(Node node) {
    Processor[] children = new Processor[node.children().size()];
    for (int i = 0; i < children.length; i++) {
      children[i] = processor(node.children().get(i));
    }
    return children;
  }

  /** The processor of a node, made once (a merge's node has several parents). */
  @SuppressWarnings("unchecked")
  private Processor processor(Node node) {
    Processor done = built.get(node);
    if (done != null) {
      return done;
    }
    if (node.op() instanceof Op.JoinSide side) {
      Processor entry = joinSide(node.children().get(0), side.left());
      built.put(node, entry);
      return entry;
    }
    Processor[] children = children(node);
    Processor processor = node.op() instanceof Op.Sink s && s.intermediate() && taskCount > 0
        ? repartitionSink(node, s) : StatelessProcessors.of(node, children, emitter, this::output);
    if (processor == null && node.op() instanceof Op.Aggregate a) {
      processor = new AggregateProcessor(node, a.aggregation(),
          context.<Object, Object>store(a.store().name()), children);
    } else if (processor == null && node.op() instanceof Op.Table t) {
      processor = new TableProcessor(node, context.<Object, Object>store(t.store().name()),
          children);
    } else if (processor == null && node.op() instanceof Op.StreamTableJoin j) {
      processor = new StreamTableJoinProcessor(node, j.joinKind(), j.joiner(),
          context.<Object, Object>store(j.tableStore()), children);
    } else if (processor == null && node.op() instanceof Op.WindowAggregate w
        && w.windows().sliding()) {
      SlidingAggregateProcessor slides = new SlidingAggregateProcessor(node, w.windows(),
          w.aggregation(), context.<byte[], byte[]>store(w.store().name()),
          (Serde<Object>) w.store().keySerde(), (Serde<Object>) w.store().valueSerde(),
          watermark, children, emitter, w.lateStream() == null ? null : output(w.lateStream()),
          lateCounter(w.store().name()));
      windowed.add(slides);
      processor = slides;
    } else if (processor == null && node.op() instanceof Op.WindowAggregate w
        && w.windows().session()) {
      SessionAggregateProcessor sessions = new SessionAggregateProcessor(node, w.windows(),
          w.aggregation(), context.<byte[], byte[]>store(w.store().name()),
          (Serde<Object>) w.store().keySerde(), (Serde<Object>) w.store().valueSerde(),
          watermark, children, emitter, w.lateStream() == null ? null : output(w.lateStream()),
          lateCounter(w.store().name()));
      windowed.add(sessions);
      processor = sessions;
    } else if (processor == null && node.op() instanceof Op.WindowAggregate w) {
      WindowAggregateProcessor window = new WindowAggregateProcessor(node, w.windows(),
          w.aggregation(), context.<byte[], byte[]>store(w.store().name()),
          (Serde<Object>) w.store().keySerde(), (Serde<Object>) w.store().valueSerde(),
          watermark, children, emitter, w.lateStream() == null ? null : output(w.lateStream()),
          lateCounter(w.store().name()));
      windowed.add(window);
      processor = window;
    }
    if (processor == null) {
      throw new IllegalStateException("no processor for " + node.describe());
    }
    built.put(node, processor);
    return processor;
  }

  /**
   * A repartition's sink: each record goes with this task's number and its watermark over the
   * partitions that feed the repartition (what it sends after is not behind it, or is late).
   */
  private Processor repartitionSink(Node node, Op.Sink sink) {
    List<Integer> feeding = new ArrayList<>();
    for (String stream : Plan.sourcesOf(node)) {
      Integer slot = slotOf.get(stream);
      if (slot != null) {
        feeding.add(slot);
      }
    }
    RepartitionOut out = new RepartitionOut(output(sink.streamId()),
        feeding.stream().mapToInt(Integer::intValue).toArray());
    repartitionOuts.add(out);
    String from = Integer.toString(context.partitionNumber());
    return (key, value, timestamp) -> {
      try {
        emitter.send(out.output, -1, key, value, timestamp, windowed.isEmpty() ? Headers.EMPTY
            : Headers.of(FROM, from).with(WATERMARK, Long.toString(sent(out))));
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
    };
  }

  /** Where one side of a join of two inputs comes in; the join is made once, for both. */
  @SuppressWarnings("unchecked")
  private Processor joinSide(Node join, boolean left) {
    Object made = joins.get(join);
    if (made == null) {
      Processor[] children = children(join);
      if (join.op() instanceof Op.TableTableJoin j) {
        made = new TableTableJoinProcessor(join, j.joinKind(), j.joiner(),
            context.<Object, Object>store(j.leftStore()),
            context.<Object, Object>store(j.rightStore()),
            context.<Object, Object>store(j.store().name()), children);
      } else if (join.op() instanceof Op.StreamStreamJoin j) {
        StreamStreamJoinProcessor stream = new StreamStreamJoinProcessor(join, j.joinKind(),
            j.joiner(), j.windows(), new JoinBuffer(context.<byte[], byte[]>store(
                j.left().name())), new JoinBuffer(context.<byte[], byte[]>store(
                j.right().name())), (Serde<Object>) j.left().keySerde(),
            (Serde<Object>) j.left().valueSerde(), (Serde<Object>) j.right().valueSerde(),
            watermark, children, lateCounter(j.name()));
        windowed.add(stream);
        made = stream;
      } else {
        throw new IllegalStateException("no join at " + join.describe());
      }
      joins.put(join, made);
    }
    return made instanceof TableTableJoinProcessor t ? t.side(left)
        : ((StreamStreamJoinProcessor) made).side(left);
  }

  private io.millrace.api.metrics.Counter lateCounter(String name) {
    return context.metrics().counter("task-" + context.partitionNumber(), name + "-late-records");
  }

  private Output output(String streamId) {
    return context.output(streamId);
  }
}
