package io.millrace.bench.nexmark.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.bench.nexmark.generator.Generator;
import io.millrace.bench.nexmark.generator.GeneratorConfig;
import org.junit.jupiter.api.Test;

/** The one wire format of the Nexmark events. */
class EventCodecTest {
  @Test
  void everyGeneratedEventReadsBackEqual() {
    Generator generator = new Generator(GeneratorConfig.defaults(3, 2_000));
    while (generator.hasNext()) {
      Object event = generator.next();
      byte[] bytes = EventCodec.encode(event);
      Object back = event instanceof Bid ? EventCodec.decodeBid(bytes)
          : event instanceof Auction ? EventCodec.decodeAuction(bytes)
          : EventCodec.decodePerson(bytes);
      assertThat(back).isEqualTo(event);
    }
  }

  @Test
  void aRecordOfAnotherKindIsRefusedNamingWhatWasExpected() {
    byte[] person = EventCodec.encode(new Person(1, "n", "e", "c", "city", "OR", 5, ""));
    assertThatThrownBy(() -> EventCodec.decodeBid(person))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a Nexmark bid record").hasMessageContaining("tag 'P'");
    assertThatThrownBy(() -> EventCodec.decodeAuction(new byte[0]))
        .hasMessageContaining("auction").hasMessageContaining("empty");
  }
}
