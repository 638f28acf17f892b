package io.millrace.examples.wordcount;

import java.util.Locale;
import java.util.function.Consumer;

/** The word counts' notion of a word: a run of letters (and inner apostrophes), lower-cased. */
final class Words {
  private Words() {}

  /** Hands each word of {@code line} to {@code action}, in order. */
  static void forEach(String line, Consumer<String> action) {
    int start = -1;
    for (int i = 0; i <= line.length(); i++) {
      boolean wordChar = i < line.length()
          && (Character.isLetter(line.charAt(i)) || (start >= 0 && line.charAt(i) == '\''));
      if (wordChar && start < 0) {
        start = i;
      } else if (!wordChar && start >= 0) {
        action.accept(line.substring(start, i).toLowerCase(Locale.ROOT));
        start = -1;
      }
    }
  }
}
