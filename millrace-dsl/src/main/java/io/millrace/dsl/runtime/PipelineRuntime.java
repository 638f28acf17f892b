package io.millrace.dsl.runtime;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.Output;
import io.millrace.api.Serde;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskContext;
import io.millrace.dsl.config.DslSettings;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import io.millrace.dsl.time.TimestampExtractor;
import io.millrace.dsl.time.WatermarkTracker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * One task's pipeline at work: a processor per node of the plan, the sources by stream id, the
 * task's watermark and the windowed operators it closes windows of. The loop thread only.
 *
 * <p>A record goes through the pipeline with the watermarks as they were before it (so lateness
 * is judged against what came before), then moves its partition's watermark; each windowed
 * operator's watermark is that of the partitions that feed it (less what operators before it
 * hold back: {@link WatermarkHolds}), and windows it closes are emitted at once. The task's clock, for idleness and the wall-clock
 * advance, moves with its ticks ({@link #tick}), scheduled on the container's clock: a test
 * driver's clock drives it as the loop's does.
 *
 * <p><b>Size.</b> Past 500 lines: it is where a task's records, ticks, repartition markers and
 * async calls meet the watermark, and splitting those would spread one per-record path over
 * several classes (its hot path is measured by {@code bench dsl}).
 */
final class PipelineRuntime {
  private final Emitter emitter = new Emitter();
  /** What operators after a mapAsync send through: their record's collector, any thread. */
  private final CallEmitter callEmitter = new CallEmitter();
  /** The emitter of the processors being built: the call's after a mapAsync. */
  private Emitter building = emitter;
  /** The input record an async task is in (loop thread), for a mapAsync to start calls under. */
  private AsyncCall current;
  private final Map<String, SourceEntry> sources = new HashMap<>();
  /** Operators that act when their watermark moves, built children first. */
  private final List<Listening> windowed = new ArrayList<>();
  private final WatermarkHolds holds = new WatermarkHolds();
  private final Map<Node, Object> joins = new IdentityHashMap<>();
  private final Map<Node, Processor> built = new IdentityHashMap<>();
  /** A repartition's markers: the sending task ({@code partitionNumber}). */
  static final String FROM = "millrace.dsl.wm.from";
  /** ... and its watermark over what feeds the repartition when it sent them. */
  static final String WATERMARK = "millrace.dsl.wm";
  /** A record that is only a watermark: not passed to the pipeline. */
  static final String MARKER = "millrace.dsl.wm.marker";
  /** ... and the sender has nothing to send (its inputs idle): leave it out until it has. */
  static final String IDLE = "millrace.dsl.wm.idle";
  private static final String GUARANTEE = "task.processing.guarantee";
  private static final String EXACTLY_ONCE = "exactly-once";
  private static final String COMMIT_MS = "task.commit.ms";
  private static final long DEFAULT_COMMIT_MS = 60_000;

  private final TaskContext context;
  private final WatermarkTracker watermark;
  private final int taskCount;
  private final Map<String, RepartitionIn> repartitionIns = new HashMap<>();
  private final List<RepartitionOut> repartitionOuts = new ArrayList<>();
  private final Map<String, Integer> slotOf = new HashMap<>();
  private final long tickMs;
  /** Closed windows' deletions and progress, held until their results are acknowledged. */
  private final HeldWrites held;
  /**
   * Whether an operator waits for a watermark: if none does, a record moves none (a stateless
   * job pays no watermark per record).
   */
  private final boolean watermarks;
  /** The stream of the last record and its source: one partition's records come in runs. */
  private String lastStream;
  private SourceEntry lastSource;
  private long now;
  private boolean ended;

  /**
   * An operator that acts when its watermark moves: the slots that feed it, how far behind
   * them its input is ({@link WatermarkHolds}), the watermark it was last moved to (what its
   * lateness is judged by, also while operators before it emit on their way).
   */
  private static final class Listening implements LongSupplier {
    final int[] slots;
    final long hold;
    WatermarkListener listener;
    long current = WatermarkTracker.NONE;

    Listening(int[] slots, long hold) {
      this.slots = slots;
      this.hold = hold;
    }

    @Override
    public long getAsLong() {
      return current;
    }
  }

  /**
   * A repartition this task reads: its records come from every task of the job, so its
   * watermark is the lowest of theirs, as each sends it along (none while one has sent none),
   * leaving out those that say they are idle (all idle: the highest of theirs, and idle).
   */
  private record RepartitionIn(int slot, Map<Integer, Long> senders, Set<Integer> idle) {
    long watermark(int taskCount) {
      if (senders.size() < taskCount) {
        return WatermarkTracker.NONE;
      }
      long min = Long.MAX_VALUE;
      long max = WatermarkTracker.NONE;
      for (Map.Entry<Integer, Long> sender : senders.entrySet()) {
        max = Math.max(max, sender.getValue());
        if (!idle.contains(sender.getKey())) {
          min = Math.min(min, sender.getValue());
        }
      }
      return idle(taskCount) ? max : min;
    }

    boolean idle(int taskCount) {
      return senders.size() >= taskCount && idle.size() == senders.size();
    }
  }

  /**
   * A repartition this task writes: the slots of the partitions that feed it, how far behind
   * the task's watermark its records may be ({@link WatermarkHolds}), what its markers say now
   * and what its markers said last.
   */
  private static final class RepartitionOut {
    final Output output;
    final int[] slots;
    final long hold;
    long sent = WatermarkTracker.NONE;
    boolean idle;
    long marked = WatermarkTracker.NONE;
    boolean markedIdle;
    boolean markedOnce;

    RepartitionOut(Output output, int[] slots, long hold) {
      this.output = output;
      this.slots = slots;
      this.hold = hold;
    }
  }

  /** A stream the pipeline reads: its node, watermark slot, extractor, the repartition it is. */
  private record SourceEntry(Node node, int partition, TimestampExtractor<Object, Object> extractor,
      Processor[] children, RepartitionIn in) {}

  PipelineRuntime(Plan plan, TaskContext context, DslSettings settings) {
    this.context = context;
    this.tickMs = settings.tickMs();
    this.taskCount = context.taskCount();
    // Before the processors are built: windowed ones hold their closing writes here.
    // Under exactly-once a transaction holds the results and the writes together; with commits
    // only when asked (task.commit.ms <= 0) none might come to let the writes go.
    boolean atOnce = EXACTLY_ONCE.equals(context.config().get(GUARANTEE))
        || commitMs(context.config()) <= 0;
    this.held = new HeldWrites(atOnce ? null : context.commits());
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
              new HashMap<>(), new HashSet<>()));
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
          op.extractor(), children(source), repartitionIns.get(op.streamId())));
    }
    this.watermarks = !windowed.isEmpty();
  }

  /** Whether the pipeline has windows to close, so the clock must be watched. */
  boolean hasWindows() {
    return watermarks;
  }

  long tickMs() {
    return tickMs;
  }

  /** Takes one input record. */
  void process(Envelope envelope, Collector collector) {
    emitter.use(collector);
    if (watermarks) {
      held.runDue(); // (only operators that wait for a watermark hold writes)
    }
    SourceEntry source = source(envelope.stream());
    RepartitionIn in = source.in;
    if (in != null) {
      repartitioned(envelope, source, in);
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
    // Every operator passes records on from a loop of its own, never through one shared method
    // (a Forward.to was): the JIT keeps one type profile per call in a method, shared by every
    // inlined copy, so there the record path's first operator met what windows emit at their
    // closes (a sink) and every other operator's children, and no longer inlined as one type.
    // A DSL windowed count, same run: 1.12x after its first fifth, 1.04x over whole cold runs
    // (docs/benchmarks.md).
    for (Processor child : source.children) {
      child.process(envelope.key(), envelope.value(), timestamp);
    }
    if (watermarks && source.partition >= 0
        && watermark.record(source.partition, timestamp, now)) {
      closeWindows();
    }
  }

  /**
   * A record or marker of a repartition this task reads. Records go on as they are: the
   * partition's watermark comes from the senders' markers alone (a marker a tick, and one at
   * the end), so a record carries no header to write, parse and merge (a windowed count after
   * a repartition spent 40% of its time on them). A record with the headers of a sender that
   * put them on every record (before this change) still moves the watermark.
   */
  private void repartitioned(Envelope envelope, SourceEntry source, RepartitionIn in) {
    String from = envelope.headers().isEmpty() ? null : envelope.headers().lastString(FROM);
    if (from == null || envelope.headers().lastValue(MARKER) == null) {
      for (Processor child : source.children) { // (its own call: see PipelineRuntime#process)
        child.process(envelope.key(), envelope.value(), envelope.timestamp());
      }
    }
    if (from != null) {
      int sender = Integer.parseInt(from);
      in.senders.merge(sender, Long.parseLong(envelope.headers().lastString(WATERMARK)),
          Math::max);
      if (envelope.headers().lastValue(IDLE) != null) {
        in.idle.add(sender);
      } else {
        in.idle.remove(sender);
      }
      watermark.observeWatermark(in.slot, in.watermark(taskCount), in.idle(taskCount), now);
      closeWindows();
    }
  }

  /**
   * The source reading {@code stream}. A stream's name is the same string in all its envelopes,
   * so the last one is found by identity, without hashing (a map look-up per record was a
   * tenth of a stateless job's time).
   */
  private SourceEntry source(String stream) {
    if (stream == lastStream) {
      return lastSource;
    }
    SourceEntry source = sources.get(stream);
    if (source == null) {
      throw new IllegalStateException("no source in the pipeline reads stream " + stream
          + " (it reads " + sources.keySet() + ")");
    }
    lastStream = stream;
    lastSource = source;
    return source;
  }

  /**
   * Takes one input record of an async task: {@code callback} completes once the record and
   * every call a mapAsync made for it have gone through the pipeline, or fails at the first
   * failure (the task's error policy applies to the record).
   */
  void processAsync(Envelope envelope, Collector collector, TaskCallback callback) {
    AsyncCall call = new AsyncCall(callback, collector);
    current = call;
    try {
      process(envelope, collector);
    } catch (RuntimeException e) {
      call.fail(e);
      return;
    } finally {
      current = null;
    }
    call.done();
  }

  /** The clock moved on by a tick: idle partitions, the wall-clock advance. */
  void tick(Collector collector) {
    emitter.use(collector);
    held.runDue();
    now += tickMs;
    watermark.advance(now);
    closeWindows();
    publish();
    sendMarkers(false);
  }

  /**
   * Tells every partition of each repartition this task writes how far it has gone, when that
   * changed since it last told them (every input ended: the end), so a partition it sends no
   * record to is not held back by it, nor run ahead of it.
   */
  private void sendMarkers(boolean ended) {
    if (!watermarks) {
      return; // no operator of the pipeline waits for a watermark
    }
    for (RepartitionOut out : repartitionOuts) {
      long wm = ended ? Long.MAX_VALUE : out.sent;
      boolean idle = !ended && out.idle;
      if (out.markedOnce && wm == out.marked && idle == out.markedIdle) {
        continue;
      }
      Headers headers = headers(wm, idle).with(MARKER, "1");
      for (int p = 0; p < out.output.partitionCount(); p++) {
        emitter.send(out.output, p, null, null, -1, headers);
      }
      out.marked = wm;
      out.markedIdle = idle;
      out.markedOnce = true;
    }
  }

  private Headers headers(long wm, boolean idle) {
    Headers headers = Headers.of(FROM, Integer.toString(context.partitionNumber()))
        .with(WATERMARK, Long.toString(wm));
    return idle ? headers.with(IDLE, "1") : headers;
  }

  /**
   * At a tick, before its markers: what each repartition's markers say, its watermark over what
   * feeds it less what the operators before it hold back, and whether all that feeds it is
   * idle. After the tick's windows are out: a marker follows the results it closed, and a
   * record sent after it is not behind it (or it is late here already).
   */
  private void publish() { // (ticks come only to a pipeline with windows: hasWindows)
    for (RepartitionOut out : repartitionOuts) {
      out.sent = Math.max(out.sent,
          WatermarkHolds.shift(watermark.watermarkOf(out.slots, now), out.hold));
      out.idle = watermark.idleOf(out.slots, now);
    }
  }

  /** Every input ended: every window closes. */
  void end(Collector collector) {
    emitter.use(collector);
    watermark.end();
    ended = true;
    try {
      closeWindows();
    } finally {
      sendMarkers(true);
    }
  }

  /** The job's commit interval ({@code task.commit.ms}, as the container reads it). */
  private static long commitMs(Map<String, String> config) {
    String value = config.get(COMMIT_MS);
    try {
      return value == null ? DEFAULT_COMMIT_MS : Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return DEFAULT_COMMIT_MS; // (the container refuses it, naming the key)
    }
  }

  /**
   * Whether the task should ask for a commit now, so that what closed windows left in the store
   * goes without waiting for the periodic one ({@link HeldWrites#commitWanted}).
   */
  boolean commitWanted() {
    return held.commitWanted();
  }

  /** The task closes: writes what is held and due (all of it after a final commit). */
  void close() {
    held.runDue();
  }

  /**
   * Moves each operator's watermark, over the slots that feed it, less what the operators
   * before it hold back; windows and join windows it closes are emitted.
   */
  private void closeWindows() {
    RuntimeException failure = null;
    // Upstream operators first (built last): what they emit on the way comes to the ones after
    // them before those move on, so it is not late there.
    for (int i = windowed.size() - 1; i >= 0; i--) {
      Listening w = windowed.get(i);
      long wm = ended ? Long.MAX_VALUE
          : WatermarkHolds.shift(watermark.watermarkOf(w.slots, now), w.hold);
      if (wm <= w.current) {
        continue; // it never goes back
      }
      w.current = wm;
      try {
        w.listener.advanceTo(wm);
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
    if (node.op() instanceof Op.MapAsync m) {
      Emitter before = building;
      building = callEmitter; // what follows it runs on the completing thread
      Processor[] children;
      try {
        children = children(node);
      } finally {
        building = before;
      }
      Processor async = new MapAsyncProcessor(node, m.fn(), children, callEmitter,
          () -> current);
      built.put(node, async);
      return async;
    }
    Processor[] children = children(node);
    Processor processor = node.op() instanceof Op.Sink s && s.intermediate() && taskCount > 0
        ? repartitionSink(node, s) : StatelessProcessors.of(node, children, building,
        this::output);
    if (processor == null && node.op() instanceof Op.Aggregate a) {
      processor = new AggregateProcessor(node, a.aggregation(),
          context.<Object, Object>store(a.store().name()), children, regroupings(children));
    } else if (processor == null && node.op() instanceof Op.Table t) {
      processor = new TableProcessor(node, context.<Object, Object>store(t.store().name()),
          children, regroupings(children), (Serde<Object>) t.store().valueSerde());
    } else if (processor == null && node.op() instanceof Op.StreamTableJoin j) {
      processor = new StreamTableJoinProcessor(node, j.joinKind(), j.joiner(),
          context.<Object, Object>store(j.tableStore()), children);
    } else if (processor == null && node.op() instanceof Op.WindowAggregate w) {
      processor = windowedAggregate(node, w, children);
    } else if (processor == null && node.op() instanceof Op.TableGroupBy g) {
      processor = new TableGroupByProcessor(node, g.selector(), (Serde<Object>) g.groupKeySerde(),
          (Serde<Object>) g.groupValueSerde(), children);
    } else if (processor == null && node.op() instanceof Op.TableAggregate a) {
      processor = new TableAggregateProcessor(node, a.aggregation(), a.subtractor(),
          (Serde<Object>) a.valueSerde(), context.<Object, Object>store(a.store().name()),
          children, regroupings(children));
    }
    if (processor == null) {
      throw new IllegalStateException("no processor for " + node.describe());
    }
    built.put(node, processor);
    return processor;
  }

  /** The re-groupings among a table's operator's children: told each key's old value. */
  private static TableGroupByProcessor[] regroupings(Processor[] children) {
    return Arrays.stream(children).filter(TableGroupByProcessor.class::isInstance)
        .map(TableGroupByProcessor.class::cast).toArray(TableGroupByProcessor[]::new);
  }

  /** A windowed aggregation of the kind its windows are, moved by a watermark of its own. */
  @SuppressWarnings("unchecked") // the store's serdes are declared for the operator's records
  private WindowedAggregate windowedAggregate(Node node, Op.WindowAggregate w,
      Processor[] children) {
    Listening listening = listening(node);
    WindowedAggregate.Parts parts = new WindowedAggregate.Parts(node, w.windows(),
        w.aggregation(), context.<byte[], byte[]>store(w.store().name()),
        (Serde<Object>) w.store().keySerde(), (Serde<Object>) w.store().valueSerde(), listening,
        children, emitter, w.lateStream() == null ? null : output(w.lateStream()),
        lateCounter(w.store().name()), held);
    WindowedAggregate window = w.windows().sliding() ? new SlidingAggregateProcessor(parts)
        : w.windows().session() ? new SessionAggregateProcessor(parts)
        : new WindowAggregateProcessor(parts);
    listening.listener = window;
    windowed.add(listening);
    return window;
  }

  /**
   * A repartition's sink: records go as they are; this task's watermark over the partitions
   * that feed the repartition goes in its markers ({@link #sendMarkers}), each tick.
   */
  private Processor repartitionSink(Node node, Op.Sink sink) {
    RepartitionOut out = new RepartitionOut(output(sink.streamId()), slotsFeeding(node),
        holds.behind(node));
    repartitionOuts.add(out);
    Emitter sends = building;
    return (key, value, timestamp) -> {
      try {
        sends.send(out.output, -1, key, value, timestamp, Headers.EMPTY);
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
            context.<Object, Object>store(j.store().name()), children,
            regroupings(children), (Serde<Object>) j.store().valueSerde());
      } else if (join.op() instanceof Op.StreamStreamJoin j) {
        Listening listening = listening(join);
        StreamStreamJoinProcessor stream = new StreamStreamJoinProcessor(join, j.joinKind(),
            j.joiner(), j.windows(), new JoinBuffer(context.<byte[], byte[]>store(
                j.left().name())), new JoinBuffer(context.<byte[], byte[]>store(
                j.right().name())), (Serde<Object>) j.left().keySerde(),
            (Serde<Object>) j.left().valueSerde(), (Serde<Object>) j.right().valueSerde(),
            listening, children, lateCounter(j.name()), held);
        listening.listener = stream;
        windowed.add(listening);
        made = stream;
      } else {
        throw new IllegalStateException("no join at " + join.describe());
      }
      joins.put(join, made);
    }
    return made instanceof TableTableJoinProcessor t ? t.side(left)
        : ((StreamStreamJoinProcessor) made).side(left);
  }

  private Listening listening(Node node) {
    return new Listening(slotsFeeding(node), holds.behind(node));
  }

  /** The slots of the partitions this task reads whose records reach {@code node}. */
  private int[] slotsFeeding(Node node) {
    List<Integer> feeding = new ArrayList<>();
    for (String stream : Plan.sourcesOf(node)) {
      Integer slot = slotOf.get(stream);
      if (slot != null) {
        feeding.add(slot);
      }
    }
    return feeding.stream().mapToInt(Integer::intValue).toArray();
  }

  private io.millrace.api.metrics.Counter lateCounter(String name) {
    return context.metrics().counter("task-" + context.partitionNumber(), name + "-late-records");
  }

  private Output output(String streamId) {
    return context.output(streamId);
  }
}
