/** Metrics a task (and the runtime) can record: counters, gauges and timers. */
package io.millrace.api.metrics;
