#!/usr/bin/env bash
# Fuzzes every parser fuzz target in turn, one at a time (docs/operations/fuzzing.md).
#
#   build/fuzz.sh [duration] [filter]
#
# duration: time per target as libFuzzer reads it (30s, 5m, 1h); default 5m.
# filter:   only targets whose name contains this string (for example Segment).
# Extra Maven arguments go in MAVEN_ARGS (for example "-o -Dmaven.repo.local=...").
# Each target's log is build/fuzz-logs/<Target>.log; the summary lists executions per target
# and whether it found a crash. Crashing inputs land in the target's Inputs directory under
# src/test/resources, where the regression run replays them from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-5m}"
filter="${2:-}"
targets=(
  "loam-wal RecordBatchFuzzTest"
  "loam-wal WalObjectFuzzTest"
  "loam-wal SegmentFuzzTest"
  "loam-meta CommandCodecFuzzTest"
  "loam-meta OutcomeCodecFuzzTest"
  "loam-meta SnapshotFuzzTest"
  "loam-journal JournalFuzzTest"
  "loam-grpc ProduceRequestFuzzTest"
  "loam-grpc IngestEventsRequestFuzzTest"
  "loam-http ProduceBodyFuzzTest"
  "loam-http ParamsFuzzTest"
  "loam-http FetchBodyFuzzTest"
  "loam-http BearerTokenFuzzTest"
  "loam-otlp OtlpBodyFuzzTest"
  "loam-cloudevents CloudEventsFuzzTest"
  "loam-kafka SaslTokenFuzzTest"
  "loam-kafka KafkaFrameFuzzTest org.apache.kafka.common.**"
  "loam-arrow ArrowFormatFuzzTest"
  "loam-flight FlightTicketFuzzTest"
)
mkdir -p build/fuzz-logs
status=0
summary=()
for t in "${targets[@]}"; do
  # An optional third word: more packages for Jazzer to instrument (the parser under test lives
  # in a library, e.g. kafka-clients' generated request classes), besides Loam's own.
  read -r module test extra <<<"$t"
  if [[ -n "$filter" && "$test" != *"$filter"* ]]; then
    continue
  fi
  log="build/fuzz-logs/$test.log"
  echo "fuzzing $module $test for $duration (log: $log)"
  includes="dev.loam.**${extra:+:$extra}"
  if JAZZER_INSTRUMENTATION_INCLUDES="$includes" mvn -B ${MAVEN_ARGS:-} -Pfuzz -pl "$module" test -Dtest="$test" \
      -Djazzer.max_duration="$duration" >"$log" 2>&1; then
    result="no crash"
  else
    result="FAILED (crash or build error, see $log)"
    status=1
  fi
  # libFuzzer's last status line: "#<executions> DONE cov: ... exec/s: ...".
  done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)"
  if [[ -n "$done_line" ]]; then
    execs="$(sed -E 's/^#([0-9]+).*/\1/' <<<"$done_line")"
    rate="$(sed -E 's/.*exec\/s: ([0-9]+).*/\1/' <<<"$done_line")"
  else
    # A run stopped by a finding prints "Done <executions> runs in <seconds> second(s)" instead.
    execs="$(grep -E '^Done [0-9]+ runs' "$log" | tail -1 | sed -E 's/^Done ([0-9]+).*/\1/' || true)"
    rate=""
  fi
  summary+=("$(printf '%-22s executions=%-10s exec/s=%-7s %s' "$test" "${execs:-?}" "${rate:-?}" "$result")")
done
printf '%s\n' "${summary[@]}"
exit "$status"
