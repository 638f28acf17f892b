/**
 * The Nexmark queries on Millrace's DSL (those it can express today: q0, q1, q2, q5, q7), their
 * serdes, and the child-JVM run that times one of them on Kafka.
 */
package io.millrace.bench.nexmark.millrace;
