package io.millrace.core.store;

import io.millrace.spi.engine.StorageEngine;
import io.millrace.core.testing.StorageEngineContract;
import java.nio.file.Path;

/** The staging engine keeps the contract over an engine, with its writes staged until a sync. */
class StagedEngineContractTest extends StorageEngineContract {
  @Override
  protected StorageEngine open(Path dir) {
    return new StagedEngine(new MemoryEngine());
  }
}
