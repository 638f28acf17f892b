package io.millrace.kafka.coordinate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The copies a member's assignment carries (standby and warm-up): round trip, the older layout,
 * and bad data read as none.
 */
class TaskAssignorTest {
  @Test
  void copiesRoundTrip() {
    TaskAssignor.Copies copies = TaskAssignor.decodeCopies(
        TaskAssignor.encodeCopies(Set.of(3, 0, 11), Set.of(5)));
    assertThat(copies.standby()).containsExactly(0, 3, 11);
    assertThat(copies.warmup()).containsExactly(5);
    TaskAssignor.Copies none = TaskAssignor.decodeCopies(
        TaskAssignor.encodeCopies(Set.of(), Set.of()));
    assertThat(none.standby()).isEmpty();
    assertThat(none.warmup()).isEmpty();
  }

  @Test
  void theFirstLayoutCarriesStandbysOnly() {
    ByteBuffer v1 = ByteBuffer.allocate(2 + 4 + 8).putShort((short) 1).putInt(2).putInt(4)
        .putInt(7).flip();
    TaskAssignor.Copies copies = TaskAssignor.decodeCopies(v1);
    assertThat(copies.standby()).containsExactly(4, 7);
    assertThat(copies.warmup()).isEmpty();
  }

  @Test
  void noDataOrDamagedDataMeansNoCopyNeverAnException() {
    assertThat(TaskAssignor.decodeCopies(null).standby()).isEmpty();
    assertThat(TaskAssignor.decodeCopies(ByteBuffer.allocate(0)).standby()).isEmpty();
    ByteBuffer whole = TaskAssignor.encodeCopies(Set.of(1, 2, 3), Set.of(9));
    for (int length = 0; length < whole.remaining(); length++) {
      TaskAssignor.Copies cut = TaskAssignor.decodeCopies(
          ByteBuffer.wrap(whole.array(), 0, length));
      assertThat(cut.standby()).as("standbys cut at %d", length).isEmpty();
      assertThat(cut.warmup()).as("warm-ups cut at %d", length).isEmpty();
    }
    Random random = new Random(3);
    for (int i = 0; i < 100; i++) {
      byte[] bytes = new byte[random.nextInt(40)];
      random.nextBytes(bytes);
      TaskAssignor.decodeCopies(ByteBuffer.wrap(bytes)); // no exception, whatever it reads
    }
  }
}
