/**
 * Local state of tasks: key-value stores backed by RocksDB or memory, with an object cache and a
 * changelog stream that a restart restores them from.
 */
package io.millrace.api.store;
