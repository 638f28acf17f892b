package io.millrace.dsl.runtime;

import io.millrace.api.Output;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;

/**
 * The operators that keep nothing between records. Each calls the user's function inside a
 * {@code try} that names the operator if it throws, and passes what it makes on outside it (so
 * a failure further on is named by the operator where it happened). Each passes records on in a
 * loop of its own rather than through a shared method: a call site shared by every operator
 * sees them all, and the JIT inlines none of them there.
 */
final class StatelessProcessors {
  private StatelessProcessors() {}

  /** The processor of a stateless node, or null if the node keeps state. */
  static Processor of(Node node, Processor[] children, Emitter emitter,
      java.util.function.Function<String, Output> outputs) {
    Op op = node.op();
    if (op instanceof Op.Map m) {
      return new MapProcessor(node, m.fn(), children);
    } else if (op instanceof Op.MapValues m) {
      return new MapValuesProcessor(node, m.fn(), children);
    } else if (op instanceof Op.TableValues t) {
      return new MapValuesProcessor(node, t.fn(), children);
    } else if (op instanceof Op.Filter f) {
      return new FilterProcessor(node, f.predicate(), children);
    } else if (op instanceof Op.FlatMap f) {
      return new FlatMapProcessor(node, f.fn(), children);
    } else if (op instanceof Op.Peek p) {
      return new PeekProcessor(node, p.action(), children);
    } else if (op instanceof Op.SelectKey s) {
      return new SelectKeyProcessor(node, s.fn(), children);
    } else if (op instanceof Op.Split s) {
      return new SplitProcessor(node, s.predicates(), children);
    } else if (op instanceof Op.Pass) {
      return (k, v, ts) -> {
        for (Processor child : children) {
          child.process(k, v, ts);
        }
      };
    } else if (op instanceof Op.Sink s) {
      return new SinkProcessor(node, outputs.apply(s.streamId()), emitter);
    }
    return null;
  }

  private record MapProcessor(Node node, BiFunction<Object, Object, KeyValue<?, ?>> fn,
      Processor[] children) implements Processor {
    @Override
    public void process(Object key, Object value, long timestamp) {
      KeyValue<?, ?> out;
      try {
        out = fn.apply(key, value);
        if (out == null) {
          throw new NullPointerException("the mapper returned null (a KeyValue is needed)");
        }
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
      for (Processor child : children) { // its own call site: one profile per operator
        child.process(out.key(), out.value(), timestamp);
      }
    }
  }

  private record MapValuesProcessor(Node node, BiFunction<Object, Object, Object> fn,
      Processor[] children) implements Processor {
    @Override
    public void process(Object key, Object value, long timestamp) {
      Object out;
      try {
        out = fn.apply(key, value);
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
      for (Processor child : children) {
        child.process(key, out, timestamp);
      }
    }
  }

  private record FilterProcessor(Node node, BiPredicate<Object, Object> predicate,
      Processor[] children) implements Processor {
    @Override
    public void process(Object key, Object value, long timestamp) {
      boolean keep;
      try {
        keep = predicate.test(key, value);
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
      if (keep) {
        for (Processor child : children) {
          child.process(key, value, timestamp);
        }
      }
    }
  }

  private record FlatMapProcessor(Node node,
      BiFunction<Object, Object, Iterable<? extends KeyValue<?, ?>>> fn, Processor[] children)
      implements Processor {
    @Override
    public void process(Object key, Object value, long timestamp) {
      Iterable<? extends KeyValue<?, ?>> out;
      try {
        out = fn.apply(key, value);
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
      if (out != null) {
        for (KeyValue<?, ?> kv : out) {
          for (Processor child : children) {
            child.process(kv.key(), kv.value(), timestamp);
          }
        }
      }
    }
  }

  private record PeekProcessor(Node node, BiConsumer<Object, Object> action,
      Processor[] children) implements Processor {
    @Override
    public void process(Object key, Object value, long timestamp) {
      try {
        action.accept(key, value);
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
      for (Processor child : children) {
        child.process(key, value, timestamp);
      }
    }
  }

  private record SelectKeyProcessor(Node node, BiFunction<Object, Object, Object> fn,
      Processor[] children) implements Processor {
    @Override
    public void process(Object key, Object value, long timestamp) {
      Object out;
      try {
        out = fn.apply(key, value);
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
      for (Processor child : children) {
        child.process(out, value, timestamp);
      }
    }
  }

  /** Children are the branches, in the predicates' order. */
  private record SplitProcessor(Node node, List<BiPredicate<Object, Object>> predicates,
      Processor[] children) implements Processor {
    @Override
    public void process(Object key, Object value, long timestamp) {
      int branch = -1;
      try {
        for (int i = 0; i < predicates.size() && branch < 0; i++) {
          if (predicates.get(i).test(key, value)) {
            branch = i;
          }
        }
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
      if (branch >= 0) {
        children[branch].process(key, value, timestamp);
      }
    }
  }

  private record SinkProcessor(Node node, Output output, Emitter emitter) implements Processor {
    @Override
    public void process(Object key, Object value, long timestamp) {
      try {
        emitter.send(output, key, value, timestamp);
      } catch (RuntimeException e) {
        throw OperatorException.on(node, key, value, e);
      }
    }
  }
}
