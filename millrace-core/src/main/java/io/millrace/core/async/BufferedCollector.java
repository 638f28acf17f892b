package io.millrace.core.async;

import io.millrace.api.Collector;
import io.millrace.api.Headers;
import io.millrace.api.Output;
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
  private final long inputTimestamp;
  private List<Object[]> sends;

  /**
   * A collector holding sends for {@code target}, of a message with timestamp
   * {@code inputTimestamp}: its sends carry it (they reach the target after other messages').
   */
  public BufferedCollector(TaskCollector target, long inputTimestamp) {
    this.target = target;
    this.inputTimestamp = inputTimestamp;
  }

  @Override
  public void send(String stream, int partition, Object key, Object value, long timestamp,
      Headers headers) {
    target.resolve(stream); // fail fast, on the caller's thread, for a stream that is not an output
    hold(stream, partition, key, value, timestamp, headers);
  }

  @Override
  public void send(Output stream, int partition, Object key, Object value, long timestamp,
      Headers headers) {
    hold(stream, partition, key, value, timestamp, headers);
  }

  private synchronized void hold(Object stream, int partition, Object key, Object value,
      long timestamp, Headers headers) {
    if (sends == null) {
      sends = new ArrayList<>(2);
    }
    sends.add(new Object[] {stream, partition, key, value,
        timestamp == -1 ? inputTimestamp : timestamp, headers == null ? Headers.EMPTY : headers});
  }

  /** Sends what was held, in order. Loop thread, after the message completed. */
  public synchronized void replay() {
    if (sends == null) {
      return;
    }
    for (Object[] send : sends) {
      long timestamp = (Long) send[4];
      Headers headers = (Headers) send[5];
      if (send[0] instanceof String stream) {
        target.send(stream, (Integer) send[1], send[2], send[3], timestamp, headers);
      } else {
        target.send((Output) send[0], (Integer) send[1], send[2], send[3], timestamp,
            headers);
      }
    }
    sends = null;
  }
}
