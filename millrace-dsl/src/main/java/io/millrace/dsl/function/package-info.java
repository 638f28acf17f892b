/** The functions a pipeline's stateful operators take beside {@code java.util.function}'s. */
package io.millrace.dsl.function;
