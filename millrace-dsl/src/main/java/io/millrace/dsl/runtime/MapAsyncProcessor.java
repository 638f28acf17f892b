package io.millrace.dsl.runtime;

import io.millrace.dsl.plan.Node;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * {@code mapAsync}: starts the user's call on the loop thread and, when its stage completes,
 * passes the record on with the new value on the completing thread, through the record's own
 * collector. The async runtime bounds the records in flight and runs one at a time per key
 * ({@code task.max.concurrency}, {@code task.ordering=key}, set by the translator), so this
 * class keeps no count of its own.
 */
final class MapAsyncProcessor implements Processor {
  private final Node node;
  private final BiFunction<Object, Object, CompletionStage<?>> fn;
  private final Processor[] children;
  private final CallEmitter emitter;
  private final Supplier<AsyncCall> calls;

  MapAsyncProcessor(Node node, BiFunction<Object, Object, CompletionStage<?>> fn,
      Processor[] children, CallEmitter emitter, Supplier<AsyncCall> calls) {
    this.node = node;
    this.fn = fn;
    this.children = children;
    this.emitter = emitter;
    this.calls = calls;
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    AsyncCall call = calls.get();
    if (call == null) {
      throw new OperatorException(node, "got a record outside an input record's call (the task "
          + "is not the async DSL task)", null);
    }
    CompletionStage<?> stage;
    try {
      stage = fn.apply(key, value);
      if (stage == null) {
        throw new NullPointerException("the mapper returned null (a CompletionStage is needed)");
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    call.begin();
    stage.whenComplete((result, error) -> {
      if (error != null) {
        call.fail(OperatorException.on(node, key, value, unwrap(error)));
        return;
      }
      if (call.finished()) {
        return; // the record failed elsewhere: its results are not sent
      }
      try {
        emitter.run(call.collector(), () -> {
          for (Processor child : children) { // (its own call: see PipelineRuntime#process)
            child.process(key, result, timestamp);
          }
        });
      } catch (Throwable e) { // an Error too: left here, it would vanish in the stage
        call.fail(e);
        return;
      }
      call.done();
    });
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause() : error;
  }
}
