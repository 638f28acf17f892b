#!/usr/bin/env python3
"""CPU seconds by thread of every java process whose command line matches PATTERN.

Reads /proc/<pid>/task/*/stat every 0.5 s until SIGTERM, SIGINT or --secs pass; a thread's last
reading is kept after it exits. Threads are grouped by name with digits folded (the kernel keeps
15 characters of a name). With --delta, CPU spent before the first reading is left out (a broker
that loaded the input before the run, say). The broker is named as such.

Usage: threadcpu.py PATTERN [--secs N] [--delta]
"""
import collections
import os
import re
import signal
import sys
import time


def _stop(*_):
    raise KeyboardInterrupt


def command_line(pid):
    try:
        with open(f'/proc/{pid}/cmdline', 'rb') as f:
            return f.read().replace(b'\0', b' ').decode(errors='replace')
    except OSError:
        return ''


def main():
    signal.signal(signal.SIGTERM, _stop)
    pattern = re.compile(sys.argv[1])
    secs = float(sys.argv[sys.argv.index('--secs') + 1]) if '--secs' in sys.argv else 1e9
    delta = '--delta' in sys.argv
    tick = os.sysconf('SC_CLK_TCK')
    seen = {}  # (pid, tid) -> (process, thread name, ticks)
    base = {}  # (pid, tid) -> ticks at the first reading, with --delta
    first = True
    end = time.time() + secs
    try:
        while time.time() < end:
            for pid in filter(str.isdigit, os.listdir('/proc')):
                if pid == str(os.getpid()):
                    continue  # its own command line holds the pattern
                line = command_line(pid)
                if 'java' not in line or not pattern.search(line):
                    continue
                name = 'broker' if 'BrokerMain' in line or 'kafka.Kafka' in line \
                    else line.split()[-1][:60]
                try:
                    tids = os.listdir(f'/proc/{pid}/task')
                except OSError:
                    continue
                for tid in tids:
                    try:
                        with open(f'/proc/{pid}/task/{tid}/stat') as f:
                            stat = f.read()
                    except OSError:
                        continue
                    thread = stat[stat.index('(') + 1:stat.rindex(')')]
                    fields = stat[stat.rindex(')') + 2:].split()
                    ticks = int(fields[11]) + int(fields[12])  # utime + stime
                    if first and delta:
                        base[(pid, tid)] = ticks
                    seen[(pid, tid)] = (pid + ' ' + name, thread, ticks - base.get((pid, tid), 0))
            first = False
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    by_process = collections.defaultdict(collections.Counter)
    for process, thread, ticks in seen.values():
        by_process[process][re.sub(r'\d+', 'N', thread)] += ticks / tick
    for process, threads in by_process.items():
        print(f'{process}: total {sum(threads.values()):.1f} s')
        for thread, seconds in threads.most_common(12):
            print(f'   {seconds:7.1f}  {thread}')


if __name__ == '__main__':
    main()
