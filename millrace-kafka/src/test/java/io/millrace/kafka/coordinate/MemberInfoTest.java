package io.millrace.kafka.coordinate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The member data a container sends the group: round trip, and damaged data named clearly. */
class MemberInfoTest {
  private static final MemberInfo INFO = new MemberInfo("3f1c-process", "host-ä", "pod-2", 1, 4,
      Map.of(7, Map.of("counts", 1234L, "totals", 0L), 11, Map.of("counts", 99L)), "rack-b");
  /** The rack's bytes at the end of {@link #INFO}'s encoding: its length and "rack-b". */
  private static final int RACK_BYTES = 4 + 6;

  @Test
  void roundTrips() {
    assertThat(MemberInfo.decode("m1", INFO.encode())).isEqualTo(INFO);
    MemberInfo empty = new MemberInfo("p", "h", "", 0, 1, Map.of(), "");
    assertThat(MemberInfo.decode("m1", empty.encode())).isEqualTo(empty);
  }

  @Test
  void dataOfAMemberThatSendsNoRackReadsAsNoRack() {
    ByteBuffer whole = INFO.encode();
    ByteBuffer older = ByteBuffer.wrap(whole.array(), 0, whole.remaining() - RACK_BYTES);
    assertThat(MemberInfo.decode("m1", older)).isEqualTo(new MemberInfo(INFO.processId(),
        INFO.host(), INFO.instanceId(), INFO.containerId(), INFO.containerCount(),
        INFO.localState(), ""));
  }

  @Test
  void noDataNamesTheMemberAndSaysWhatItMeans() {
    assertThatThrownBy(() -> MemberInfo.decode("consumer-7", null))
        .hasMessageContaining("group member consumer-7 sent no Millrace member data");
    assertThatThrownBy(() -> MemberInfo.decode("consumer-7", ByteBuffer.allocate(0)))
        .hasMessageContaining("not Millrace");
  }

  @Test
  void everyTruncationIsAClearErrorNeverAnotherException() {
    ByteBuffer whole = INFO.encode();
    for (int length = 1; length < whole.remaining(); length++) {
      if (length == whole.remaining() - RACK_BYTES) {
        continue; // where an older member's data ends: read as no rack (the test above)
      }
      ByteBuffer cut = ByteBuffer.wrap(whole.array(), 0, length);
      int n = length;
      assertThatThrownBy(() -> MemberInfo.decode("m", cut)).as("cut at %d", n)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("group member m sent member data");
    }
  }

  @Test
  void randomBytesAreAClearErrorNeverAHang() {
    Random random = new Random(7);
    for (int i = 0; i < 2_000; i++) {
      byte[] bytes = new byte[2 + random.nextInt(64)];
      random.nextBytes(bytes);
      bytes[0] = 0;
      bytes[1] = 1; // version 1, then garbage
      try {
        MemberInfo.decode("m", ByteBuffer.wrap(bytes));
      } catch (IllegalArgumentException expected) {
        assertThat(expected).hasMessageContaining("group member m");
      }
    }
  }

  @Test
  void anOlderVersionIsRefusedByName() {
    ByteBuffer old = ByteBuffer.allocate(2).putShort((short) 0).flip();
    assertThatThrownBy(() -> MemberInfo.decode("m", old))
        .hasMessageContaining("version 0; this process reads version 1");
  }
}
