#!/bin/bash
# One system's Nexmark query alone, with the CPU seconds of each thread of its JVM and of the
# broker over the query's run (from the end of the load; threadcpu.py, python3). From any
# directory: millrace-bench/scripts/nexmark-threads.sh SYSTEM QUERY EVENTS [RUNS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
out=$(mktemp /tmp/nexmark-threads.XXXX)
bin/millrace bench nexmark --systems "$1" --queries "$2" --events "$3" --runs "${4:-1}" > "$out" 2>&1 &
bench=$!
until grep -q "^settings:" "$out" 2>/dev/null || ! kill -0 $bench 2>/dev/null; do sleep 0.2; done
python3 "$here/threadcpu.py" java --delta > "$out.cpu" &
sampler=$!
wait $bench
kill -TERM $sampler; wait $sampler
grep "^round\|^RESULT" "$out"; cat "$out.cpu"
rm -f "$out" "$out.cpu"
