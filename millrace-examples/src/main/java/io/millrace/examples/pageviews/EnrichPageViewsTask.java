package io.millrace.examples.pageviews;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskContext;

/**
 * Page-view enrichment against a remote service: each page view (key: the user id, value: the
 * page) is sent on with the user's country, looked up in a (simulated) remote service taking
 * 1-200 ms. Many lookups are in flight at once ({@code task.max.concurrency}); with
 * {@code task.ordering=key}, one user's page views are still enriched and written in order.
 */
public final class EnrichPageViewsTask implements AsyncStreamTask, InitableTask {
  private SimulatedUserService users;

  @Override
  public void init(TaskContext context) {
    users = new SimulatedUserService(context.partitionNumber(), 1, 200);
  }

  @Override
  public void processAsync(
      Envelope envelope, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
    String user = (String) envelope.key();
    String page = (String) envelope.value();
    if (user == null) {
      callback.fail(new IllegalArgumentException("a page view needs a user id key: " + page));
      return;
    }
    users.lookup(user, (country, error) -> {
      if (error != null) {
        callback.fail(error);
        return;
      }
      collector.send("enriched", user, page + "," + country);
      callback.complete();
    });
  }
}
