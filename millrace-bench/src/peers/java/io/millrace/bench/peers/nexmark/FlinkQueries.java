package io.millrace.bench.peers.nexmark;

import io.millrace.bench.nexmark.AuctionWinner;
import io.millrace.bench.nexmark.Lines;
import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.TopAuctions;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.BidList;
import io.millrace.bench.nexmark.events.EventCodec;
import io.millrace.bench.nexmark.events.Person;
import io.millrace.bench.nexmark.generator.NexmarkLoader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The nine queries on Flink's DataStream API. Each makes a stream of output records (key and
 * value bytes) for the Kafka sink: q0 the bids as read, the others text lines, keyed as the
 * TABLE queries need. Windows are Flink's own (tumbling, sliding, session) and close on the
 * watermark; the joins keep both sides in keyed state.
 */
final class FlinkQueries {
  static final TypeInformation<Tuple2<byte[], byte[]>> OUT =
      Types.TUPLE(Types.PRIMITIVE_ARRAY(Types.BYTE), Types.PRIMITIVE_ARRAY(Types.BYTE));
  private static final Duration WINDOW = Duration.ofMillis(Lines.WINDOW_MS);

  private final StreamExecutionEnvironment env;
  private final String bootstrap;
  private final Map<String, String> topics;
  private final String group;

  FlinkQueries(StreamExecutionEnvironment env, String bootstrap, Map<String, String> topics,
      String group) {
    this.env = env;
    this.bootstrap = bootstrap;
    this.topics = topics;
    this.group = group;
  }

  static Tuple2<byte[], byte[]> line(String key, String line) {
    return Tuple2.of(key.getBytes(StandardCharsets.UTF_8), line.getBytes(StandardCharsets.UTF_8));
  }

  private DataStream<Bid> bids() {
    return FlinkEvents.bids(env, bootstrap, topics.get("bid"), group);
  }

  DataStream<Tuple2<byte[], byte[]>> build(NexmarkQuery query) {
    return switch (query) {
      case Q0 -> bids().map(b -> Tuple2.of(NexmarkLoader.key(b.auction()), EventCodec.encode(b)))
          .returns(OUT);
      case Q1 -> bids().map(b -> line(Long.toString(b.auction()),
          Lines.q1(b, Lines.euroMilliCents(b.price())))).returns(OUT);
      case Q2 -> bids().filter(b -> b.auction() % 123 == 0)
          .map(b -> line(Long.toString(b.auction()), Lines.q2(b.auction(), b.price())))
          .returns(OUT);
      case Q3 -> q3();
      case Q4 -> q4();
      case Q5 -> q5();
      case Q7 -> q7();
      case Q8 -> q8();
      case Q11 -> q11();
    };
  }

  /** A regular join: sellers and their auctions both kept in keyed state. */
  private DataStream<Tuple2<byte[], byte[]>> q3() {
    DataStream<Person> sellers = FlinkEvents.persons(env, bootstrap, topics.get("person"), group)
        .filter(p -> Lines.Q3_STATES.contains(p.state()));
    DataStream<Auction> auctions = FlinkEvents.auctions(env, bootstrap, topics.get("auction"),
        group).filter(a -> a.category() == Lines.Q3_CATEGORY);
    return sellers.keyBy(Person::id).connect(auctions.keyBy(Auction::seller))
        .process(new SellerJoin()).returns(OUT);
  }

  static final class SellerJoin
      extends KeyedCoProcessFunction<Long, Person, Auction, Tuple2<byte[], byte[]>> {
    private transient ValueState<Person> seller;
    private transient ListState<Auction> waiting;

    @Override
    public void open(OpenContext context) {
      seller = getRuntimeContext().getState(new ValueStateDescriptor<>("seller", Person.class));
      waiting = getRuntimeContext().getListState(
          new ListStateDescriptor<>("waiting", Auction.class));
    }

    @Override
    public void processElement1(Person p, Context ctx, Collector<Tuple2<byte[], byte[]>> out)
        throws Exception {
      seller.update(p);
      for (Auction a : waiting.get()) {
        out.collect(line(Long.toString(a.id()), Lines.q3(p, a.id())));
      }
      waiting.clear();
    }

    @Override
    public void processElement2(Auction a, Context ctx, Collector<Tuple2<byte[], byte[]>> out)
        throws Exception {
      Person p = seller.value();
      if (p != null) {
        out.collect(line(Long.toString(a.id()), Lines.q3(p, a.id())));
      } else {
        waiting.add(a);
      }
    }
  }

  /**
   * The highest valid bid per auction (auction and bids in keyed state, either first), each
   * change sent on as a retraction and an addition, averaged per category.
   */
  private DataStream<Tuple2<byte[], byte[]>> q4() {
    DataStream<Auction> auctions = FlinkEvents.auctions(env, bootstrap, topics.get("auction"),
        group);
    return auctions.keyBy(Auction::id).connect(bids().keyBy(Bid::auction))
        .process(new Winners())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG))
        .keyBy(t -> t.f0, Types.LONG)
        .process(new CategoryAverage()).returns(OUT);
  }

  /** Emits (category, previous highest or -1, new highest) when an auction's winner changes. */
  static final class Winners
      extends KeyedCoProcessFunction<Long, Auction, Bid, Tuple3<Long, Long, Long>> {
    private transient ValueState<byte[]> state;

    @Override
    public void open(OpenContext context) {
      state = getRuntimeContext().getState(new ValueStateDescriptor<>("winner",
          PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    private AuctionWinner current() throws Exception {
      byte[] bytes = state.value();
      return bytes == null ? AuctionWinner.empty() : AuctionWinner.decode(bytes);
    }

    private void update(AuctionWinner before, AuctionWinner after,
        Collector<Tuple3<Long, Long, Long>> out) throws Exception {
      state.update(after.encode());
      if (after.hasWinner() && after.highest() != (before.hasWinner() ? before.highest() : -1)) {
        out.collect(Tuple3.of(after.auction().category(),
            before.hasWinner() ? before.highest() : -1L, after.highest()));
      }
    }

    @Override
    public void processElement1(Auction a, Context ctx, Collector<Tuple3<Long, Long, Long>> out)
        throws Exception {
      AuctionWinner before = current();
      update(before, before.withAuction(a), out);
    }

    @Override
    public void processElement2(Bid b, Context ctx, Collector<Tuple3<Long, Long, Long>> out)
        throws Exception {
      AuctionWinner before = current();
      AuctionWinner after = before.withBid(b);
      if (after != before) {
        update(before, after, out);
      }
    }
  }

  static final class CategoryAverage
      extends KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, Tuple2<byte[], byte[]>> {
    private transient ValueState<long[]> sumCount;

    @Override
    public void open(OpenContext context) {
      sumCount = getRuntimeContext().getState(new ValueStateDescriptor<>("sum-count",
          PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void processElement(Tuple3<Long, Long, Long> change, Context ctx,
        Collector<Tuple2<byte[], byte[]>> out) throws Exception {
      long[] sc = sumCount.value() == null ? new long[2] : sumCount.value();
      if (change.f1 >= 0) {
        sc[0] -= change.f1;
        sc[1]--;
      }
      sc[0] += change.f2;
      sc[1]++;
      sumCount.update(sc);
      out.collect(line(Long.toString(change.f0), Lines.q4(change.f0, sc[0] / sc[1])));
    }
  }

  /** A bid count per auction and sliding window; then per window, once it is complete. */
  private DataStream<Tuple2<byte[], byte[]>> q5() {
    return bids().keyBy(Bid::auction)
        .window(SlidingEventTimeWindows.of(WINDOW, Duration.ofMillis(Lines.SLIDE_MS)))
        .aggregate(new Count(), new WithWindowStart(),
            Types.LONG, Types.LONG, Types.TUPLE(Types.LONG, Types.LONG, Types.LONG))
        .keyBy(t -> t.f0, Types.LONG)
        .process(new TopPerWindow()).returns(OUT);
  }

  static final class Count implements AggregateFunction<Bid, Long, Long> {
    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Bid value, Long accumulator) {
      return accumulator + 1;
    }

    @Override
    public Long getResult(Long accumulator) {
      return accumulator;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  /** (window start, key, count). */
  static final class WithWindowStart
      extends ProcessWindowFunction<Long, Tuple3<Long, Long, Long>, Long, TimeWindow> {
    @Override
    public void process(Long key, Context context, Iterable<Long> counts,
        Collector<Tuple3<Long, Long, Long>> out) {
      out.collect(Tuple3.of(context.window().getStart(), key, counts.iterator().next()));
    }
  }

  /**
   * Folds a window's counts as they come (all carry the window's last instant as their time);
   * a timer at that instant fires once the watermark has passed it, so after the last of them.
   */
  static final class TopPerWindow
      extends KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, Tuple2<byte[], byte[]>> {
    private transient ValueState<long[]> top;

    @Override
    public void open(OpenContext context) {
      top = getRuntimeContext().getState(new ValueStateDescriptor<>("top",
          PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void processElement(Tuple3<Long, Long, Long> count, Context ctx,
        Collector<Tuple2<byte[], byte[]>> out) throws Exception {
      long[] t = top.value();
      if (t == null) {
        t = TopAuctions.empty();
        ctx.timerService().registerEventTimeTimer(ctx.timestamp());
      }
      top.update(TopAuctions.with(t, count.f1, count.f2));
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx,
        Collector<Tuple2<byte[], byte[]>> out) throws Exception {
      long start = ctx.getCurrentKey();
      out.collect(line(Long.toString(start), TopAuctions.lines(start, top.value())));
      top.clear();
    }
  }

  /** The highest bids per auction and tumbling window; then per window, once complete. */
  private DataStream<Tuple2<byte[], byte[]>> q7() {
    TypeInformation<List<Bid>> list = Types.LIST(TypeInformation.of(Bid.class));
    return bids().keyBy(Bid::auction)
        .window(TumblingEventTimeWindows.of(WINDOW))
        .aggregate(new Highest(), new HighestWithStart(), list, list,
            Types.TUPLE(Types.LONG, list))
        .keyBy(t -> t.f0, Types.LONG)
        .process(new HighestPerWindow()).returns(OUT);
  }

  static final class Highest implements AggregateFunction<Bid, List<Bid>, List<Bid>> {
    @Override
    public List<Bid> createAccumulator() {
      return new ArrayList<>();
    }

    @Override
    public List<Bid> add(Bid value, List<Bid> accumulator) {
      return BidList.withHighest(accumulator, value);
    }

    @Override
    public List<Bid> getResult(List<Bid> accumulator) {
      return accumulator;
    }

    @Override
    public List<Bid> merge(List<Bid> a, List<Bid> b) {
      return BidList.merge(a, b);
    }
  }

  static final class HighestWithStart
      extends ProcessWindowFunction<List<Bid>, Tuple2<Long, List<Bid>>, Long, TimeWindow> {
    @Override
    public void process(Long key, Context context, Iterable<List<Bid>> highest,
        Collector<Tuple2<Long, List<Bid>>> out) {
      out.collect(Tuple2.of(context.window().getStart(), highest.iterator().next()));
    }
  }

  static final class HighestPerWindow
      extends KeyedProcessFunction<Long, Tuple2<Long, List<Bid>>, Tuple2<byte[], byte[]>> {
    private transient ValueState<List<Bid>> highest;

    @Override
    public void open(OpenContext context) {
      highest = getRuntimeContext().getState(new ValueStateDescriptor<>("highest",
          Types.LIST(TypeInformation.of(Bid.class))));
    }

    @Override
    public void processElement(Tuple2<Long, List<Bid>> some, Context ctx,
        Collector<Tuple2<byte[], byte[]>> out) throws Exception {
      List<Bid> h = highest.value();
      if (h == null) {
        h = List.of();
        ctx.timerService().registerEventTimeTimer(ctx.timestamp());
      }
      highest.update(new ArrayList<>(BidList.merge(h, some.f1)));
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx,
        Collector<Tuple2<byte[], byte[]>> out) throws Exception {
      long start = ctx.getCurrentKey();
      out.collect(line(Long.toString(start), Lines.q7(start, highest.value())));
      highest.clear();
    }
  }

  /** A window join: persons and the auctions they sell in the same tumbling window. */
  private DataStream<Tuple2<byte[], byte[]>> q8() {
    DataStream<Person> persons = FlinkEvents.persons(env, bootstrap, topics.get("person"), group);
    DataStream<Auction> auctions = FlinkEvents.auctions(env, bootstrap, topics.get("auction"),
        group);
    return persons.join(auctions).where(Person::id, Types.LONG).equalTo(Auction::seller)
        .window(TumblingEventTimeWindows.of(WINDOW))
        .apply((p, a) -> {
          long start = Lines.tumble(p.dateTime());
          return line(p.id() + "@" + start, Lines.q8(p.id(), p.name(), start));
        }, OUT);
  }

  /** Bids per bidder session (a 10 s gap). */
  private DataStream<Tuple2<byte[], byte[]>> q11() {
    return bids().keyBy(Bid::bidder)
        .window(EventTimeSessionWindows.withGap(WINDOW))
        .aggregate(new Count(), new SessionLine(), Types.LONG, Types.LONG, OUT);
  }

  static final class SessionLine
      extends ProcessWindowFunction<Long, Tuple2<byte[], byte[]>, Long, TimeWindow> {
    @Override
    public void process(Long bidder, Context context, Iterable<Long> counts,
        Collector<Tuple2<byte[], byte[]>> out) {
      TimeWindow w = context.window();
      out.collect(line(bidder + "@" + w.getStart(),
          Lines.q11(bidder, counts.iterator().next(), w.getStart(), w.getEnd())));
    }
  }
}
