package io.millrace.dsl.plan;

import io.millrace.api.Serde;

/**
 * A store a stateful operator keeps its state in: its user-given name, and the serdes of what
 * the operator puts in it.
 *
 * @param keySerde the record key's serde
 * @param valueSerde the serde of what is stored per key
 * @param raw whether the operator encodes keys and values itself (a window store's panes, a
 *     join's buffer), so the store holds bytes ({@code stores.<name>.key.serde=bytes}) made with
 *     these serdes
 */
public record StoreDef(String name, Serde<?> keySerde, Serde<?> valueSerde, boolean raw) {
  /** A store of objects, written with the serdes. */
  public StoreDef(String name, Serde<?> keySerde, Serde<?> valueSerde) {
    this(name, keySerde, valueSerde, false);
  }
}
