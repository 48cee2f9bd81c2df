#!/usr/bin/env bash
# Runs Loam's JMH benchmarks: loam-bench/run.sh [JMH options], e.g. `-f 3 -wi 3 -i 5 RecordBatch`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
(cd "$here/.." && mvn -B -q -DskipTests -Dspotless.check.skip=true install -pl loam-bench -am >&2)
exec java -cp "$here/target/classes:$here/target/lib/*" org.openjdk.jmh.Main "$@"
