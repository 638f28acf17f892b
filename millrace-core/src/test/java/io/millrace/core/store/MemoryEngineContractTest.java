package io.millrace.core.store;

import io.millrace.spi.engine.StorageEngine;
import io.millrace.core.testing.StorageEngineContract;
import java.nio.file.Path;

class MemoryEngineContractTest extends StorageEngineContract {
  @Override
  protected StorageEngine open(Path dir) {
    return new MemoryEngine();
  }
}
