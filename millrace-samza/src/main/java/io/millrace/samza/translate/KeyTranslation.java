package io.millrace.samza.translate;

import java.util.HashSet;
import java.util.List;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A translation in progress: the Millrace keys written so far, the Samza keys read (which do not
 * pass through to Millrace's validation as they are), and the keys ignored, grouped by why.
 */
final class KeyTranslation {
  private final Map<String, String> millrace = new TreeMap<>();
  private final Set<String> consumed = new HashSet<>();
  private final Map<String, Set<String>> ignored = new TreeMap<>();

  /** Writes a Millrace key. */
  void put(String key, String value) {
    millrace.put(key, value);
  }

  /** Marks a Samza key as read: it reaches the task under {@code samza.}, not Millrace. */
  void consume(String key) {
    consumed.add(key);
  }

  /** Marks a Samza key as having no meaning here, for the note that says why. */
  void ignore(String key, String why) {
    consumed.add(key);
    ignored.computeIfAbsent(why, w -> new TreeSet<>()).add(key);
  }

  boolean consumed(String key) {
    return consumed.contains(key);
  }

  Map<String, String> millraceKeys() {
    return millrace;
  }

  /** One line per reason, naming its keys, in a stable order. */
  List<String> notes() {
    List<String> notes = new ArrayList<>();
    ignored.forEach((why, keys) -> notes.add("ignored " + String.join(", ", keys) + ": " + why));
    return notes;
  }
}
