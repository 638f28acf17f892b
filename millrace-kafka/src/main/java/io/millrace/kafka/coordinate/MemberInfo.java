package io.millrace.kafka.coordinate;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a container tells the group when it joins, in its subscription's user data: which process
 * it runs in (so tasks are balanced over processes, then containers), where, and what the process
 * holds on local disk (so a stateful task goes where it has the least to restore).
 *
 * <p>Layout (big-endian):
 *
 * <pre>
 * short version (1)
 * string processId, string host, string instanceId ("" if none)
 * int containerId, int containerCount
 * int tasks with local state; per task: int task, int stores; per store: string name, long offset
 * string rack ("" if none; absent in data of processes older than it: read as "")
 * (string: int byte length, UTF-8 bytes)
 * </pre>
 *
 * Fields are only ever added at the end, so a reader reads what it knows and ignores the rest.
 *
 * @param processId a random id of the process, new at each start
 * @param host the process's host name
 * @param instanceId {@code job.instance.id}, or ""
 * @param containerId the container's id in its process
 * @param containerCount the process's containers
 * @param localState per task with local store files: the changelog offset each store's hold
 * @param rack {@code job.rack}, or "": standby copies go to another rack than their task's
 */
record MemberInfo(String processId, String host, String instanceId, int containerId,
    int containerCount, Map<Integer, Map<String, Long>> localState, String rack) {
  static final short VERSION = 1;

  ByteBuffer encode() {
    byte[][] strings = {bytes(processId), bytes(host), bytes(instanceId)};
    byte[] rackBytes = bytes(rack);
    int size = 2 + 4 * 3 + 8 + 4 + 4 + rackBytes.length;
    for (byte[] s : strings) {
      size += s.length;
    }
    for (Map<String, Long> stores : localState.values()) {
      size += 8;
      for (String store : stores.keySet()) {
        size += 4 + bytes(store).length + 8;
      }
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putShort(VERSION);
    for (byte[] s : strings) {
      b.putInt(s.length).put(s);
    }
    b.putInt(containerId).putInt(containerCount);
    b.putInt(localState.size());
    for (Map.Entry<Integer, Map<String, Long>> task : localState.entrySet()) {
      b.putInt(task.getKey()).putInt(task.getValue().size());
      for (Map.Entry<String, Long> store : task.getValue().entrySet()) {
        byte[] name = bytes(store.getKey());
        b.putInt(name.length).put(name).putLong(store.getValue());
      }
    }
    b.putInt(rackBytes.length).put(rackBytes);
    return b.flip();
  }

  /**
   * Reads a member's data; a member of a newer version that sent more fields is read up to what
   * this version knows.
   *
   * @throws IllegalArgumentException naming what is wrong, if the data is not a Millrace member's
   */
  static MemberInfo decode(String memberId, ByteBuffer data) {
    if (data == null || !data.hasRemaining()) {
      throw new IllegalArgumentException("group member " + memberId + " sent no Millrace member "
          + "data: is a process that is not Millrace (or an older one) in the job's group?");
    }
    ByteBuffer b = data.duplicate();
    try {
      short version = b.getShort();
      if (version < VERSION) {
        throw new IllegalArgumentException("group member " + memberId + " sent member data of "
            + "version " + version + "; this process reads version " + VERSION);
      }
      String processId = string(b);
      String host = string(b);
      String instanceId = string(b);
      int containerId = b.getInt();
      int containerCount = b.getInt();
      int tasks = b.getInt();
      Map<Integer, Map<String, Long>> state = new TreeMap<>();
      for (int i = 0; i < tasks; i++) {
        int task = b.getInt();
        int stores = b.getInt();
        Map<String, Long> offsets = new TreeMap<>();
        for (int j = 0; j < stores; j++) {
          offsets.put(string(b), b.getLong());
        }
        state.put(task, offsets);
      }
      String rack = b.hasRemaining() ? string(b) : "";
      return new MemberInfo(processId, host, instanceId, containerId, containerCount, state,
          rack);
    } catch (BufferUnderflowException | NegativeArraySizeException e) {
      throw new IllegalArgumentException("group member " + memberId + " sent member data that "
          + "ends early or is damaged (" + data.remaining() + " bytes)", e);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String string(ByteBuffer b) {
    int length = b.getInt();
    if (length < 0 || length > b.remaining()) {
      throw new BufferUnderflowException();
    }
    byte[] s = new byte[length];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
