package io.millrace.dsl.plan;

/** Which records of a join come out without a match. */
public enum JoinKind {
  /** Only matches. */
  INNER("join"),
  /** Matches, and each left record without one (its right side null). */
  LEFT("leftJoin"),
  /** Matches, and each record of either side without one (the other side null). */
  OUTER("outerJoin");

  private final String word;

  JoinKind(String word) {
    this.word = word;
  }

  /** The operator's name in paths and messages. */
  public String word() {
    return word;
  }

  /** Whether a left record without a match comes out. */
  public boolean keepsLeft() {
    return this != INNER;
  }

  /** Whether a right record without a match comes out. */
  public boolean keepsRight() {
    return this == OUTER;
  }
}
