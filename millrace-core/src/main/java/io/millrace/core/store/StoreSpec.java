package io.millrace.core.store;
import io.millrace.api.Serde;
import io.millrace.spi.engine.EngineSpec;
import io.millrace.spi.engine.StorageEngineFactory;
import java.util.Map;

/**
 * A store as the job declares it ({@code stores.<name>.*}).
 *
 * @param name the store's name
 * @param factory its engine
 * @param keySerde turns keys into the bytes the engine and the changelog hold
 * @param valueSerde likewise for values
 * @param changelogSystem the system of its changelog, or null without one
 * @param changelogStream the changelog's physical name (a topic), or null
 * @param cacheSize deserialized entries kept in the object cache
 * @param writeBatchSize dirty entries that make the cache flush before a commit
 * @param config the store's keys with {@code stores.<name>.} removed
 */
public record StoreSpec(String name, StorageEngineFactory factory, Serde<?> keySerde,
    Serde<?> valueSerde, String changelogSystem, String changelogStream, int cacheSize,
    int writeBatchSize, Map<String, String> config) {

  /** The store as its engine sees it. */
  public EngineSpec engineSpec() {
    return new EngineSpec(name, config);
  }

  /** Whether the store has a changelog. */
  public boolean hasChangelog() {
    return changelogSystem != null;
  }

  /** The stream id its changelog partitions carry in checkpoints. */
  public String changelogId() {
    return "changelog:" + name;
  }

  /** Its changelog stream as the system sees it: bytes in, bytes out (the store serializes). */
  public io.millrace.spi.system.StreamSpec changelogSpec() {
    io.millrace.core.serde.BytesSerde bytes = new io.millrace.core.serde.BytesSerde();
    return new io.millrace.spi.system.StreamSpec(changelogId(), changelogStream, bytes, bytes);
  }
}
