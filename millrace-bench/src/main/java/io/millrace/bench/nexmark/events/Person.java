package io.millrace.bench.nexmark.events;

/** A new person of the auction house (Nexmark's {@code Person}); {@code dateTime} is its event time in ms. */
public record Person(long id, String name, String emailAddress, String creditCard, String city,
    String state, long dateTime, String extra) {}
