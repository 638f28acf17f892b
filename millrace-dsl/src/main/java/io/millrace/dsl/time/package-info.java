/** Event time: timestamps of records and watermarks over a task's input partitions. */
package io.millrace.dsl.time;
