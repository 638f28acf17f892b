package io.millrace.core.system.file;

import io.millrace.api.config.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * How a file stream maps to files: a stream's physical name is a path; a regular file is a
 * one-partition stream, a directory is a stream with one partition per regular, non-hidden file,
 * in name order. Output partition {@code p} is {@code <dir>/part-<p, 5 digits>}.
 */
final class FileStreams {
  private FileStreams() {}

  /** The files of an input stream, one per partition. */
  static List<Path> inputFiles(String streamId, Path path) {
    if (Files.isRegularFile(path)) {
      return List.of(path);
    }
    if (!Files.isDirectory(path)) {
      throw new ConfigException("input stream " + streamId + ": file or directory " + path
          + " does not exist (streams." + streamId + ".physical.name)");
    }
    try (Stream<Path> files = Files.list(path)) {
      List<Path> result = files
          .filter(Files::isRegularFile)
          .filter(f -> !f.getFileName().toString().startsWith("."))
          .sorted()
          .collect(Collectors.toList());
      if (result.isEmpty()) {
        throw new ConfigException("input stream " + streamId + ": directory " + path
            + " holds no files");
      }
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list input stream " + streamId + " in " + path, e);
    }
  }

  /** The file of an output partition. */
  static Path outputFile(Path dir, int partition) {
    return dir.resolve(String.format("part-%05d", partition));
  }
}
