package io.millrace.core.plan;

import io.millrace.api.config.ConfigException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The text of a plan file: what {@code millrace plan} prints and {@code --against} reads. One
 * line per thing, in a fixed order, so that two plans of the same job are the same text and a
 * diff of two files is readable:
 *
 * <pre>
 * millrace-plan 1
 * job &lt;name&gt;
 * task &lt;class&gt;
 * tasks &lt;n&gt;
 * input|output|internal &lt;id&gt; system=&lt;s&gt; physical=&lt;name&gt; partitions=&lt;n&gt;
 * store &lt;name&gt; factory=&lt;f&gt; key.serde=&lt;class&gt; value.serde=&lt;class&gt; [changelog=&lt;system.stream&gt;] partitions=&lt;n&gt;
 * operator &lt;path&gt; kind=&lt;kind&gt; [name=&lt;name&gt;] [stores=&lt;a,b&gt;]
 * </pre>
 *
 * Lines starting with {@code #} and blank lines are comments. A word or value holding a space, a
 * quote, a backslash, an {@code =} or a {@code #} is written in double quotes with {@code \"},
 * {@code \\}, {@code \n} and {@code \t} escaped. Anything else stops the read with the file and
 * line named.
 */
public final class PlanFormat {
  /** The first line of a plan file of this version. */
  public static final String HEADER = "millrace-plan 1";

  private PlanFormat() {}

  /** The plan's text, ending with a newline. */
  public static String write(Outline outline) {
    StringBuilder text = new StringBuilder();
    text.append("# the plan of job ").append(outline.job()).append(" (millrace plan); millrace ")
        .append("plan --against <this file> <job.properties>\n# says which state a change of ")
        .append("the job would orphan. Format: docs/configuration.md, \"millrace plan\".\n");
    text.append(HEADER).append('\n');
    line(text, "job", outline.job(), Map.of());
    line(text, "task", outline.task(), Map.of());
    line(text, "tasks", Integer.toString(outline.tasks()), Map.of());
    for (Outline.Stream s : outline.streams()) {
      Map<String, String> values = new LinkedHashMap<>();
      values.put("system", s.system());
      values.put("physical", s.physical());
      values.put("partitions", Integer.toString(s.partitions()));
      line(text, s.role().word(), s.id(), values);
    }
    for (Outline.Store s : outline.stores()) {
      Map<String, String> values = new LinkedHashMap<>();
      values.put("factory", s.factory());
      values.put("key.serde", s.keySerde());
      values.put("value.serde", s.valueSerde());
      if (s.changelog() != null) {
        values.put("changelog", s.changelog());
      }
      values.put("partitions", Integer.toString(s.partitions()));
      line(text, "store", s.name(), values);
    }
    for (Outline.Operator o : outline.operators()) {
      Map<String, String> values = new LinkedHashMap<>();
      values.put("kind", o.kind());
      if (o.name() != null) {
        values.put("name", o.name());
      }
      if (!o.stores().isEmpty()) {
        values.put("stores", String.join(",", o.stores()));
      }
      line(text, "operator", o.path(), values);
    }
    return text.toString();
  }

  /**
   * Reads a plan file's text.
   *
   * @param file the file's name, for messages
   * @throws ConfigException naming the file and the line of the first thing that is wrong
   */
  public static Outline read(String text, String file) {
    String job = null;
    String task = null;
    int tasks = -1;
    List<Outline.Stream> streams = new ArrayList<>();
    List<Outline.Store> stores = new ArrayList<>();
    List<Outline.Operator> operators = new ArrayList<>();
    boolean header = false;
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Line line = new Line(file, i + 1, lines[i].endsWith("\r")
          ? lines[i].substring(0, lines[i].length() - 1) : lines[i]);
      String trimmed = line.text.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      if (!header) {
        if (!trimmed.equals(HEADER)) {
          throw line.bad("this is not a plan file of this version: its first line must be '"
              + HEADER + "' (a file written by millrace plan --out, or by redirecting its "
              + "output)");
        }
        header = true;
        continue;
      }
      List<String> tokens = line.tokens();
      String word = tokens.get(0);
      if (tokens.size() < 2) {
        throw line.bad("'" + word + "' needs a value after it");
      }
      String head = tokens.get(1);
      Map<String, String> values = line.values(tokens.subList(2, tokens.size()));
      switch (word) {
        case "job" -> {
          line.only(values, Set.of());
          job = head;
        }
        case "task" -> {
          line.only(values, Set.of());
          task = head;
        }
        case "tasks" -> {
          line.only(values, Set.of());
          tasks = line.count("tasks", head);
        }
        case "input", "output", "internal" -> {
          line.only(values, Set.of("system", "physical", "partitions"));
          streams.add(new Outline.Stream(Outline.Role.valueOf(word.toUpperCase(
              java.util.Locale.ROOT)), head, line.required(values, "system"),
              line.required(values, "physical"),
              line.count("partitions", line.required(values, "partitions"))));
        }
        case "store" -> {
          line.only(values, Set.of("factory", "key.serde", "value.serde", "changelog",
              "partitions"));
          stores.add(new Outline.Store(head, line.required(values, "factory"),
              line.required(values, "key.serde"), line.required(values, "value.serde"),
              values.get("changelog"),
              line.count("partitions", line.required(values, "partitions"))));
        }
        case "operator" -> {
          line.only(values, Set.of("kind", "name", "stores"));
          String listed = values.get("stores");
          operators.add(new Outline.Operator(head, line.required(values, "kind"),
              values.get("name"), listed == null ? List.of() : List.of(listed.split(","))));
        }
        default -> throw line.bad("unknown line '" + word + "' (a plan's lines start with job, "
            + "task, tasks, input, output, internal, store or operator)");
      }
    }
    if (!header) {
      throw new ConfigException("plan file " + file + " is empty: it has no '" + HEADER
          + "' line (a file written by millrace plan --out, or by redirecting its output)");
    }
    if (job == null || task == null || tasks < 0) {
      throw new ConfigException("plan file " + file + " lacks its "
          + (job == null ? "job" : task == null ? "task" : "tasks") + " line: it is cut short "
          + "or was edited; write it again with millrace plan --out");
    }
    return new Outline(job, task, tasks, streams, stores, operators);
  }

  private static void line(StringBuilder text, String word, String head,
      Map<String, String> values) {
    text.append(word).append(' ').append(quote(head));
    values.forEach((k, v) -> text.append(' ').append(k).append('=').append(quote(v)));
    text.append('\n');
  }

  /** A word as it is written: bare if it can be read back bare, else in quotes. */
  static String quote(String value) {
    boolean bare = !value.isEmpty();
    for (int i = 0; i < value.length() && bare; i++) {
      char c = value.charAt(i);
      bare = c > ' ' && c != '"' && c != '\\' && c != '=' && c != '#' && c != 0x7f;
    }
    if (bare) {
      return value;
    }
    StringBuilder quoted = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> quoted.append("\\\"");
        case '\\' -> quoted.append("\\\\");
        case '\n' -> quoted.append("\\n");
        case '\t' -> quoted.append("\\t");
        case '\r' -> quoted.append("\\r");
        default -> quoted.append(c);
      }
    }
    return quoted.append('"').toString();
  }

  /** One line being read, for its tokens and for errors that name it. */
  private static final class Line {
    private final String file;
    private final int number;
    private final String text;

    Line(String file, int number, String text) {
      this.file = file;
      this.number = number;
      this.text = text;
    }

    ConfigException bad(String what) {
      return new ConfigException("plan file " + file + " line " + number + ": " + what
          + ": '" + text.strip() + "'");
    }

    /** Its words and key=value pairs, quotes removed ({@code key=} kept on a value's token). */
    List<String> tokens() {
      List<String> tokens = new ArrayList<>();
      int i = 0;
      int n = text.length();
      while (i < n) {
        char c = text.charAt(i);
        if (c == ' ' || c == '\t') {
          i++;
          continue;
        }
        StringBuilder token = new StringBuilder();
        while (i < n && text.charAt(i) != ' ' && text.charAt(i) != '\t') {
          c = text.charAt(i);
          if (c == '"') {
            i = quoted(i + 1, token);
          } else {
            token.append(c);
            i++;
          }
        }
        tokens.add(token.toString());
      }
      return tokens;
    }

    /** Reads a quoted string from after its opening quote; returns the index after its end. */
    private int quoted(int from, StringBuilder into) {
      int i = from;
      while (i < text.length()) {
        char c = text.charAt(i++);
        if (c == '"') {
          return i;
        }
        if (c == '\\') {
          if (i >= text.length()) {
            break;
          }
          char e = text.charAt(i++);
          switch (e) {
            case '"', '\\' -> into.append(e);
            case 'n' -> into.append('\n');
            case 't' -> into.append('\t');
            case 'r' -> into.append('\r');
            default -> throw bad("unknown escape \\" + e + " in a quoted value (only \\\", "
                + "\\\\, \\n, \\t, \\r)");
          }
        } else {
          into.append(c);
        }
      }
      throw bad("a quoted value has no closing quote");
    }

    Map<String, String> values(List<String> tokens) {
      Map<String, String> values = new LinkedHashMap<>();
      for (String token : tokens) {
        int eq = token.indexOf('=');
        if (eq <= 0) {
          throw bad("'" + token + "' is not key=value");
        }
        if (values.put(token.substring(0, eq), token.substring(eq + 1)) != null) {
          throw bad(token.substring(0, eq) + " is given twice");
        }
      }
      return values;
    }

    void only(Map<String, String> values, Set<String> allowed) {
      for (String key : values.keySet()) {
        if (!allowed.contains(key)) {
          throw bad("unknown key '" + key + "'" + (allowed.isEmpty() ? " (this line takes none)"
              : " (this line takes " + String.join(", ", new java.util.TreeSet<>(allowed)) + ")"));
        }
      }
    }

    String required(Map<String, String> values, String key) {
      String value = values.get(key);
      if (value == null) {
        throw bad("missing " + key + "=");
      }
      return value;
    }

    int count(String what, String value) {
      try {
        int count = Integer.parseInt(value);
        if (count >= 0) {
          return count;
        }
      } catch (NumberFormatException e) {
        // said below
      }
      throw bad(what + " must be a whole number of 0 or more, not '" + value + "'");
    }
  }
}
