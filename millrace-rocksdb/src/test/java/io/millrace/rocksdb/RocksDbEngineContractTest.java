package io.millrace.rocksdb;

import io.millrace.spi.engine.StorageEngine;
import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.store.StoreResources;
import io.millrace.core.store.StoreSpec;
import io.millrace.core.testing.StorageEngineContract;
import java.nio.file.Path;
import java.util.Map;

class RocksDbEngineContractTest extends StorageEngineContract {
  private final StoreResources resources = new StoreResources(Map.of(), 1);

  @Override
  protected void afterEngines() {
    resources.close();
  }

  @Override
  protected StorageEngine open(Path dir) {
    StoreSpec spec = new StoreSpec("s", new RocksDbEngineFactory(), new StringSerde(),
        new LongSerde(), null, null, 100, 100, Map.of());
    return new RocksDbEngineFactory().open(spec.engineSpec(), dir, resources);
  }
}
