package io.millrace.spi.engine;

import java.util.Map;

/**
 * What an engine is told about a store it opens or checks.
 *
 * @param storeName the store's name ({@code stores.<name>.*}), for messages and file names
 * @param config the store's keys with {@code stores.<name>.} removed (its engine options among
 *     them)
 */
public record EngineSpec(String storeName, Map<String, String> config) {}
