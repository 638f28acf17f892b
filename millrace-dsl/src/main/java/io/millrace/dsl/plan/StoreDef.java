package io.millrace.dsl.plan;

import io.millrace.api.Serde;

/**
 * A store a stateful operator keeps its state in: its user-given name, and the serdes of what
 * the operator puts in it (for a windowed operator, the record key's serde: the store's own keys
 * are panes, encoded by the operator).
 */
public record StoreDef(String name, Serde<?> keySerde, Serde<?> valueSerde) {}
