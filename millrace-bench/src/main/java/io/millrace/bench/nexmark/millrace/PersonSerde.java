package io.millrace.bench.nexmark.millrace;

import io.millrace.api.Serde;
import io.millrace.bench.nexmark.events.Person;
import io.millrace.bench.nexmark.events.EventCodec;

/** Millrace's serde of a {@link Person}: {@link EventCodec}'s bytes. */
public final class PersonSerde implements Serde<Person> {
  @Override
  public byte[] toBytes(Person object) {
    return object == null ? null : EventCodec.encode(object);
  }

  @Override
  public Person fromBytes(byte[] bytes) {
    return bytes == null ? null : EventCodec.decodePerson(bytes);
  }
}
