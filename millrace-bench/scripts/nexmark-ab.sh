#!/bin/bash
# Same-run A/B of one Nexmark query on Millrace alone: a clone or worktree of the build before
# (BEFORE_DIR) and this one, alternating which goes first each round, a fresh broker and JVMs
# each run. Takes the build lock (/tmp/millrace-build.lock) around each run, as the other
# benchmarks here do; build both first (mvn -B -q -Ppeers -pl millrace-bench -am package
# -DskipTests in each).
# From any directory: millrace-bench/scripts/nexmark-ab.sh BEFORE_DIR QUERY EVENTS [ROUNDS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
after=$(cd "$here/../.." && pwd)
before=$(cd "$1" && pwd)
query=$2; events=$3; rounds=${4:-3}
run() { # side dir
  local result
  result=$(cd "$2" && flock /tmp/millrace-build.lock bin/millrace bench nexmark --systems millrace \
    --queries "$query" --events "$events" --runs 1 2>&1 | grep "^RESULT nexmark query")
  echo "$(date +%T) round $i $1: $result"
}
for i in $(seq 1 "$rounds"); do
  if [ $((i % 2)) = 1 ]; then run before "$before"; run after "$after"
  else run after "$after"; run before "$before"; fi
done
