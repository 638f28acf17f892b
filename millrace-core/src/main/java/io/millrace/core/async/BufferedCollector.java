package io.millrace.core.async;

import io.millrace.api.Collector;
import io.millrace.api.OutputStream;
import io.millrace.core.output.TaskCollector;
import java.util.ArrayList;
import java.util.List;

/**
 * The collector of one asynchronous message: sends from any thread are held with the message and
 * reach the producers on the loop thread when it completes, so output is attributed to its message
 * (and a commit never includes output of a message it does not include).
 */
public final class BufferedCollector implements Collector {
  private final TaskCollector target;
  private List<Object[]> sends;

  /** A collector holding sends for {@code target}. */
  public BufferedCollector(TaskCollector target) {
    this.target = target;
  }

  @Override
  public void send(String stream, Object key, Object value) {
    target.route(stream); // fail fast, on the caller's thread, for a stream that is not an output
    hold(stream, -1, key, value);
  }

  @Override
  public void send(String stream, int partition, Object key, Object value) {
    target.route(stream);
    hold(stream, partition, key, value);
  }

  @Override
  public void send(OutputStream stream, Object key, Object value) {
    hold(stream, -1, key, value);
  }

  @Override
  public void send(OutputStream stream, int partition, Object key, Object value) {
    hold(stream, partition, key, value);
  }

  private synchronized void hold(Object stream, int partition, Object key, Object value) {
    if (sends == null) {
      sends = new ArrayList<>(2);
    }
    sends.add(new Object[] {stream, partition, key, value});
  }

  /** Sends what was held, in order. Loop thread, after the message completed. */
  public synchronized void replay() {
    if (sends == null) {
      return;
    }
    for (Object[] send : sends) {
      if (send[0] instanceof String stream) {
        target.send(stream, (Integer) send[1], send[2], send[3]);
      } else {
        target.send((OutputStream) send[0], (Integer) send[1], send[2], send[3]);
      }
    }
    sends = null;
  }
}
