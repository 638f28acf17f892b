/** Windows on event time and the keys of their results. */
package io.millrace.dsl.window;
