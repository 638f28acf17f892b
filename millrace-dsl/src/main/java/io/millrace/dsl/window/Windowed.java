package io.millrace.dsl.window;

/**
 * The key of a window's result: the record key and the window, {@code [start, end)} in ms since
 * the epoch.
 *
 * @param <K> the record key's type
 */
public record Windowed<K>(K key, long start, long end) {
  @Override
  public String toString() {
    return key + "@" + start + "/" + end;
  }
}
