package io.millrace.examples.enrich;

/** The enrich examples' input lines: users ({@code id,name,country}) and page views. */
final class Records {
  private Records() {}

  /** Whether a line carries nothing: blank, or a {@code #} comment. */
  static boolean skip(String line) {
    return line.isBlank() || line.startsWith("#");
  }

  /** A user line's id and its {@code name,country}. */
  static String[] user(String line) {
    String[] fields = line.split(",", -1);
    if (fields.length != 3) {
      throw new IllegalArgumentException("a user line needs id,name,country: " + line);
    }
    return new String[] {fields[0].trim(), fields[1].trim() + "," + fields[2].trim()};
  }

  /** A page-view line's user id and page. */
  static String[] pageView(String line) {
    String[] fields = line.split(",", -1);
    if (fields.length != 2) {
      throw new IllegalArgumentException("a page view line needs userId,page: " + line);
    }
    return new String[] {fields[0].trim(), fields[1].trim()};
  }
}
