package io.millrace.core.system.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Reads a file line by line, knowing each line's byte position, so that an offset is a byte
 * position and a restart resumes in the middle of the file. Lines end at '\n' (a '\r' before it is
 * dropped); a last line without '\n' still counts.
 */
final class LineReader implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
  /** File position of buffer index 0. */
  private long bufferStart;
  private boolean eof;
  private long lineStart;
  private byte[] line = new byte[256];
  private int lineLength;

  LineReader(Path file, long position) throws IOException {
    this.file = file;
    this.channel = FileChannel.open(file, StandardOpenOption.READ);
    channel.position(position);
    bufferStart = position;
    buffer.flip(); // empty, ready to read
  }

  Path file() {
    return file;
  }

  /** Reads the next line into {@link #line()}; false at end of file. */
  boolean next() throws IOException {
    lineLength = 0;
    lineStart = bufferStart + buffer.position();
    while (true) {
      if (!buffer.hasRemaining()) {
        if (eof || !fill()) {
          if (lineLength > 0) {
            return true; // a last line without '\n'
          }
          return false;
        }
      }
      byte b = buffer.get();
      if (b == '\n') {
        if (lineLength > 0 && line[lineLength - 1] == '\r') {
          lineLength--;
        }
        return true;
      }
      if (lineLength == line.length) {
        line = Arrays.copyOf(line, line.length * 2);
      }
      line[lineLength++] = b;
    }
  }

  private boolean fill() throws IOException {
    bufferStart += buffer.position();
    buffer.clear();
    int read = channel.read(buffer);
    buffer.flip();
    if (read <= 0) {
      eof = true;
      return false;
    }
    return true;
  }

  /** The byte position where the current line starts: its offset. */
  long lineStart() {
    return lineStart;
  }

  /** The byte position after the current line: where the next one starts. */
  long position() {
    return bufferStart + buffer.position();
  }

  /** A copy of the current line's bytes. */
  byte[] lineBytes() {
    return Arrays.copyOf(line, lineLength);
  }

  /** The number of bytes the current line took, with its end. */
  int lineLength() {
    return lineLength;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
