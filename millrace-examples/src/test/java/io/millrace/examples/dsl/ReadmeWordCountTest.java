package io.millrace.examples.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README shows the DSL word count as code a reader can copy: it must be the example's code
 * ({@link WordCount}, which {@link WordCountTest} runs), not a sketch that drifted from it. The
 * README may add end-of-line comments and leave out {@code @Override}; nothing else may differ.
 */
class ReadmeWordCountTest {
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

  @Test
  void theReadmesDslWordCountIsTheExamplesCode() throws IOException {
    Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Path readme = module.resolveSibling("README.md");
    Path source = module.resolve("src/main/java/io/millrace/examples/dsl/WordCount.java");

    String shown = javaBlockDeclaring(Files.readString(readme), "class WordCount implements");
    String code = Files.readString(source);
    String classOnly = code.substring(code.indexOf("public final class WordCount"));

    assertThat(codeLines(shown)).as("the README's DSL word count (%s) against %s", readme, source)
        .isEqualTo(codeLines(classOnly));
  }

  @Test
  void codeLinesIgnoreOnlyEndOfLineCommentsOverridesAndIndentation() {
    assertThat(codeLines("  @Override\n  void a() {   // why\n    b(\"//x\");\n  }\n"))
        .containsExactly("void a() {", "b(\"//x\");", "}");
    assertThat(codeLines("a();\n")).isNotEqualTo(codeLines("a(1);\n"));
  }

  private static String javaBlockDeclaring(String markdown, String declaration) {
    Matcher m = JAVA_BLOCK.matcher(markdown);
    while (m.find()) {
      if (m.group(1).contains(declaration)) {
        return m.group(1);
      }
    }
    throw new AssertionError("README.md has no ```java block declaring '" + declaration + "'");
  }

  /** The lines that are code: end-of-line comments, @Override and blank lines dropped, trimmed. */
  static List<String> codeLines(String text) {
    return text.lines()
        .map(ReadmeWordCountTest::withoutEndOfLineComment)
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !line.equals("@Override"))
        .collect(Collectors.toList());
  }

  /** Cuts a line at a {@code //} outside a string literal (the word count has no char literals). */
  private static String withoutEndOfLineComment(String line) {
    boolean inString = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\\' && inString) {
        i++; // an escaped character, a quote included
      } else if (c == '"') {
        inString = !inString;
      } else if (!inString && c == '/' && i + 1 < line.length() && line.charAt(i + 1) == '/') {
        return line.substring(0, i);
      }
    }
    return line;
  }
}
