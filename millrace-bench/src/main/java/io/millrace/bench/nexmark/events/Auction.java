package io.millrace.bench.nexmark.events;

/**
 * A new auction (Nexmark's {@code Auction}): open from {@code dateTime} (its event time, ms) to
 * {@code expires}; {@code seller} is a person id.
 */
public record Auction(long id, String itemName, String description, long initialBid, long reserve,
    long dateTime, long expires, long seller, long category, String extra) {}
