package io.millrace.bench.nexmark.events;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The Nexmark events on the wire, the same bytes for Millrace, Kafka Streams and Flink (each wraps
 * these methods in its own serde interface, so the three parse with the same code; the why is in
 * docs/decisions.md). Layout, big-endian, no padding:
 *
 * <pre>
 *   person:  'P' id:i64 dateTime:i64 name email creditCard city state extra
 *   auction: 'A' id:i64 initialBid:i64 reserve:i64 dateTime:i64 expires:i64 seller:i64
 *                category:i64 itemName description extra
 *   bid:     'B' auction:i64 bidder:i64 price:i64 dateTime:i64 channel url extra
 *   string:  length:u16 then that many ISO-8859-1 bytes (the generator writes ASCII only)
 * </pre>
 *
 * The leading tag byte makes a record read with the wrong type fail with a clear error instead of
 * yielding garbage. Thread-safe: it holds no state.
 */
public final class EventCodec {
  static final byte PERSON = 'P';
  static final byte AUCTION = 'A';
  static final byte BID = 'B';

  private EventCodec() {}

  /** The bytes of a person. */
  public static byte[] encode(Person p) {
    ByteBuffer b = ByteBuffer.allocate(1 + 16 + size(p.name()) + size(p.emailAddress())
        + size(p.creditCard()) + size(p.city()) + size(p.state()) + size(p.extra()));
    b.put(PERSON).putLong(p.id()).putLong(p.dateTime());
    put(b, p.name());
    put(b, p.emailAddress());
    put(b, p.creditCard());
    put(b, p.city());
    put(b, p.state());
    put(b, p.extra());
    return b.array();
  }

  /** The bytes of an auction. */
  public static byte[] encode(Auction a) {
    ByteBuffer b = ByteBuffer.allocate(1 + 56 + size(a.itemName()) + size(a.description())
        + size(a.extra()));
    b.put(AUCTION).putLong(a.id()).putLong(a.initialBid()).putLong(a.reserve())
        .putLong(a.dateTime()).putLong(a.expires()).putLong(a.seller()).putLong(a.category());
    put(b, a.itemName());
    put(b, a.description());
    put(b, a.extra());
    return b.array();
  }

  /** The bytes of a bid. */
  public static byte[] encode(Bid bid) {
    ByteBuffer b = ByteBuffer.allocate(1 + 32 + size(bid.channel()) + size(bid.url())
        + size(bid.extra()));
    b.put(BID).putLong(bid.auction()).putLong(bid.bidder()).putLong(bid.price())
        .putLong(bid.dateTime());
    put(b, bid.channel());
    put(b, bid.url());
    put(b, bid.extra());
    return b.array();
  }

  /** The bytes of any of the three events. */
  public static byte[] encode(Object event) {
    if (event instanceof Bid b) {
      return encode(b);
    } else if (event instanceof Auction a) {
      return encode(a);
    } else if (event instanceof Person p) {
      return encode(p);
    }
    throw new IllegalArgumentException("not a Nexmark event: " + event);
  }

  /** Reads a person; throws {@link IllegalArgumentException} on bytes that are not one. */
  public static Person decodePerson(byte[] bytes) {
    ByteBuffer b = open(bytes, PERSON, "person");
    long id = b.getLong();
    long dateTime = b.getLong();
    // Arguments are evaluated left to right: the strings in their wire order.
    String name = get(b);
    String email = get(b);
    String creditCard = get(b);
    String city = get(b);
    String state = get(b);
    return new Person(id, name, email, creditCard, city, state, dateTime, get(b));
  }

  /** Reads an auction; throws {@link IllegalArgumentException} on bytes that are not one. */
  public static Auction decodeAuction(byte[] bytes) {
    ByteBuffer b = open(bytes, AUCTION, "auction");
    long id = b.getLong();
    long initialBid = b.getLong();
    long reserve = b.getLong();
    long dateTime = b.getLong();
    long expires = b.getLong();
    long seller = b.getLong();
    long category = b.getLong();
    return new Auction(id, get(b), get(b), initialBid, reserve, dateTime, expires, seller, category,
        get(b));
  }

  /** Reads a bid; throws {@link IllegalArgumentException} on bytes that are not one. */
  public static Bid decodeBid(byte[] bytes) {
    ByteBuffer b = open(bytes, BID, "bid");
    long auction = b.getLong();
    long bidder = b.getLong();
    long price = b.getLong();
    long dateTime = b.getLong();
    return new Bid(auction, bidder, price, get(b), get(b), dateTime, get(b));
  }

  private static ByteBuffer open(byte[] bytes, byte tag, String what) {
    if (bytes == null || bytes.length == 0 || bytes[0] != tag) {
      throw new IllegalArgumentException("not a Nexmark " + what + " record: "
          + (bytes == null || bytes.length == 0 ? "empty" : "tag '" + (char) bytes[0] + "'"));
    }
    return ByteBuffer.wrap(bytes, 1, bytes.length - 1);
  }

  private static int size(String s) {
    return 2 + s.length();
  }

  private static void put(ByteBuffer b, String s) {
    if (s.length() > 0xFFFF) {
      throw new IllegalArgumentException("a string of " + s.length() + " chars (at most 65535)");
    }
    b.putShort((short) s.length());
    b.put(s.getBytes(StandardCharsets.ISO_8859_1));
  }

  private static String get(ByteBuffer b) {
    int length = b.getShort() & 0xFFFF;
    String s = new String(b.array(), b.arrayOffset() + b.position(), length,
        StandardCharsets.ISO_8859_1);
    b.position(b.position() + length);
    return s;
  }
}
