package io.millrace.bench.nexmark.events;

/** A bid (Nexmark's {@code Bid}) on auction {@code auction} by person {@code bidder}; {@code dateTime} is its event time in ms. */
public record Bid(long auction, long bidder, long price, String channel, String url, long dateTime,
    String extra) {}
