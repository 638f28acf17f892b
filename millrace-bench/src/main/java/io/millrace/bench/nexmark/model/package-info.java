/**
 * The reference: each Nexmark query in plain Java over a whole, small run held in memory, with no
 * framework, no state store and no notion of arrival order. Every system's output is compared
 * with it line for line.
 */
package io.millrace.bench.nexmark.model;
