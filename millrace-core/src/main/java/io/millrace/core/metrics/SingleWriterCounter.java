package io.millrace.core.metrics;

import io.millrace.api.metrics.Counter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A counter with one writer thread. An opaque write instead of an atomic add: on x86 it is a plain
 * store, so counting costs what a field update costs, and readers on other threads still see a
 * recent value without tearing.
 */
public final class SingleWriterCounter implements Counter {
  private static final VarHandle VALUE;

  static {
    try {
      VALUE = MethodHandles.lookup().findVarHandle(SingleWriterCounter.class, "value", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @SuppressWarnings("unused") // accessed through VALUE
  private long value;

  @Override
  public void inc() {
    inc(1);
  }

  @Override
  public void inc(long n) {
    VALUE.setOpaque(this, (long) VALUE.getOpaque(this) + n);
  }

  @Override
  public long count() {
    return (long) VALUE.getOpaque(this);
  }
}
