package io.millrace.rocksdb;

import io.millrace.spi.engine.StorageEngine;
import io.millrace.core.store.StagedEngine;
import java.nio.file.Path;

/** Exactly-once's staging in front of RocksDB keeps the contract: a sync applies and persists. */
class StagedRocksDbEngineContractTest extends RocksDbEngineContractTest {
  @Override
  protected StorageEngine open(Path dir) {
    return new StagedEngine(super.open(dir));
  }
}
