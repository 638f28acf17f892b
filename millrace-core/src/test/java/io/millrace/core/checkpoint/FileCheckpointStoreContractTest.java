package io.millrace.core.checkpoint;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint store contract on files: a directory with a file per container. */
class FileCheckpointStoreContractTest extends CheckpointStoreContract {
  @TempDir Path tmp;

  private Path dir() {
    return tmp.resolve("checkpoints");
  }

  @Override
  protected CheckpointStore openStore(int partitions) {
    return new FileCheckpointStore(dir());
  }

  @Override
  protected String system() {
    return "file";
  }

  @Override
  protected void damage(StreamPartition partition) throws Exception {
    Path file = new FileCheckpointStore(dir()).file(0);
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x10; // one bit of a record: the checksum no longer matches
    Files.write(file, bytes);
  }

  @Override
  protected String where() {
    return new FileCheckpointStore(dir()).file(0).toString();
  }
}
