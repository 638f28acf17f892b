/** A pipeline at work in a task: its processors, watermark and windows, and the task class. */
package io.millrace.dsl.runtime;
