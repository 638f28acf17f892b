package io.millrace.samza.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.samza.serde.SameBytesSerde;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.samza.storage.kv.Entry;
import org.junit.jupiter.api.Test;

/** The store over a Millrace store that serializes with Samza's bytes itself (a map stands in). */
class SamzaKeyValueStoreTest {
  private final Map<Object, Object> held = new HashMap<>();
  private final SamzaKeyValueStore<Object, Object> store = new SamzaKeyValueStore<>(
      new MapStore(held), null, null, SameBytesSerde.STRING, SameBytesSerde.LONG);

  @Test
  void theTasksObjectsPassToAMillraceStoreThatSerializesThem() {
    store.put("a", 1L);
    store.putAll(List.of(new Entry<>("b", 2L)));

    assertThat(held).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1L, "b", 2L));
    assertThat(store.get("a")).isEqualTo(1L);
  }

  @Test
  void aKeyOrValueOfAnotherClassIsRefusedAsSamzasSerdeRefusesIt() {
    assertThatThrownBy(() -> store.put(7, 1L)).isInstanceOf(ClassCastException.class)
        .hasMessageContaining("java.lang.String");
    assertThatThrownBy(() -> store.get(7)).isInstanceOf(ClassCastException.class);
    assertThatThrownBy(() -> store.put("a", "one")).isInstanceOf(ClassCastException.class)
        .hasMessageContaining("java.lang.Long");
    assertThatThrownBy(() -> store.putAll(List.of(new Entry<>("x", 1L), new Entry<>("y", "two"))))
        .isInstanceOf(ClassCastException.class);

    assertThat(held).isEmpty(); // a refused putAll writes none of its entries, as on Samza
  }

  private record MapStore(Map<Object, Object> map)
      implements io.millrace.api.store.KeyValueStore<Object, Object> {
    @Override
    public Object get(Object key) {
      return map.get(key);
    }

    @Override
    public void put(Object key, Object value) {
      map.put(key, value);
    }

    @Override
    public void putAll(List<KeyValue<Object, Object>> entries) {
      entries.forEach(e -> map.put(e.key(), e.value()));
    }

    @Override
    public void delete(Object key) {
      map.remove(key);
    }

    @Override
    public KeyValueIterator<Object, Object> range(Object from, Object to) {
      throw new UnsupportedOperationException("not used here");
    }

    @Override
    public KeyValueIterator<Object, Object> prefix(Object prefix) {
      throw new UnsupportedOperationException("not used here");
    }

    @Override
    public KeyValueIterator<Object, Object> all() {
      throw new UnsupportedOperationException("not used here");
    }
  }
}
