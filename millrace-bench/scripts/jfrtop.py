#!/usr/bin/env python3
"""Where a JFR recording's Java samples are, per thread: the hottest methods by self time (the
top frame) and by total time (anywhere on the stack), from `jfr print` of jdk.ExecutionSample.

Threads are grouped by name with digits folded ("kafka-producer-network-thread | p-3" and "-7"
together). Native time (RocksDB's JNI, say) shows as the Java frame that called it; for time in
native code alone read jdk.NativeMethodSample the same way (--event).

Usage: jfrtop.py FILE.jfr [--thread SUBSTRING] [--top N] [--event jdk.ExecutionSample]
"""
import argparse
import collections
import re
import subprocess
import sys

FRAME = re.compile(r"^\s+(\S.*?)\s+line:\s*-?\d+")
THREAD = re.compile(r'^\s+sampledThread = "(.*)" \(')


def samples(path, event):
    """Yields (thread, [frames, top first]) per sample."""
    out = subprocess.run(["jfr", "print", "--events", event, "--stack-depth", "64", path],
                         check=True, capture_output=True, text=True).stdout
    thread, frames, in_stack = None, [], False
    for line in out.splitlines():
        if line.startswith(event):
            thread, frames, in_stack = None, [], False
            continue
        m = THREAD.match(line)
        if m:
            thread = m.group(1)
            continue
        if line.strip().startswith("stackTrace = ["):
            in_stack = True
            continue
        if in_stack:
            if line.strip() == "]":
                in_stack = False
                yield thread or "?", frames
                continue
            f = FRAME.match(line)
            if f:
                frames.append(f.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--thread", default="", help="only threads whose name holds this")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--event", default="jdk.ExecutionSample")
    args = ap.parse_args()

    by_thread = collections.Counter()
    self_time = collections.defaultdict(collections.Counter)
    total_time = collections.defaultdict(collections.Counter)
    for thread, frames in samples(args.file, args.event):
        if args.thread not in thread:
            continue
        group = re.sub(r"\d+", "N", thread)
        by_thread[group] += 1
        if frames:
            self_time[group][frames[0]] += 1
        for f in set(frames):
            total_time[group][f] += 1
    if not by_thread:
        sys.exit("no %s samples%s" % (args.event, " in threads holding '%s'" % args.thread
                                      if args.thread else ""))
    all_samples = sum(by_thread.values())
    for group, n in by_thread.most_common():
        print("%s: %d samples (%.1f%%)" % (group, n, 100.0 * n / all_samples))
        for title, table in (("self", self_time[group]), ("total", total_time[group])):
            print("  %s:" % title)
            for frame, k in table.most_common(args.top):
                print("    %5.1f%%  %s" % (100.0 * k / n, frame))


if __name__ == "__main__":
    main()
