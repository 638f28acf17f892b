package io.millrace.core.config;

import io.millrace.api.config.ConfigException;
import java.nio.file.Path;

/**
 * Finds, by line number, what {@link java.util.Properties} would reject or misread without
 * saying where: a bad {@code \\u} escape (it throws "Malformed \\uxxxx encoding" for the whole
 * file) and a line with no key before its '=' (it keeps an empty key).
 */
final class PropertiesLines {
  private PropertiesLines() {}

  /**
   * Checks each logical line of {@code text} (continued lines joined, comments skipped).
   *
   * @throws ConfigException naming the file and the line of the first problem
   */
  static void check(Path file, String text) {
    String[] lines = text.split("\r\n|\r|\n", -1);
    for (int i = 0; i < lines.length; i++) {
      int first = i + 1;
      StringBuilder logical = new StringBuilder(lines[i].stripLeading());
      if (logical.length() == 0 || logical.charAt(0) == '#' || logical.charAt(0) == '!') {
        continue;
      }
      while (continues(logical) && i + 1 < lines.length) {
        logical.setLength(logical.length() - 1);
        logical.append(lines[++i].stripLeading());
      }
      String line = logical.toString();
      String where = "job file " + file + " line " + first;
      if (line.charAt(0) == '=' || line.charAt(0) == ':') {
        throw new ConfigException(where + ": no key before its '" + line.charAt(0) + "' ("
            + quote(line) + "); a line is key=value");
      }
      badEscape(where, line);
    }
  }

  /** A line ending in an odd number of backslashes goes on on the next line. */
  private static boolean continues(CharSequence line) {
    int backslashes = 0;
    for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
      backslashes++;
    }
    return backslashes % 2 == 1;
  }

  private static void badEscape(String where, String line) {
    for (int i = 0; i < line.length() - 1; i++) {
      if (line.charAt(i) != '\\') {
        continue;
      }
      if (line.charAt(i + 1) == 'u') {
        String digits = line.substring(i + 2, Math.min(line.length(), i + 6));
        if (digits.length() < 4 || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
          throw new ConfigException(where + ": bad escape '\\u" + digits + "' in "
              + quote(line) + ": \\u must be followed by four hex digits (a backslash itself is "
              + "written \\\\, e.g. C:\\\\users)");
        }
      }
      i++; // the escaped character is not the start of another escape
    }
  }

  private static String quote(String line) {
    return "'" + (line.length() > 60 ? line.substring(0, 57) + "..." : line) + "'";
  }
}
