#!/usr/bin/env bash
# The change stream's lag while a large table is snapshotted under the
# demo workload, on the simulator's real clock, for each reader count.
#
# The scenario is the built-in `demo` (its tables and workload) with one
# more table, APP.BIG, of ROWS rows (default 10000000; the scenario's
# memory_mb lets the simulator hold them, some 4.3 GB), read at READ_RATE
# rows/s (default 100000, the
# simulator's `read_rows_per_s`: a database read over a network, which
# keeps the snapshot long enough to watch). For each of READERS (default
# "0 1 2"; 0 reads on the mining session between windows):
#   cdcctl --source sim:FILE run --output out.jsonl --checkpoint cp.json
# runs every table's snapshot, then streams on; `cdcctl status --format
# json` is read every 0.5 s until the snapshot is done, and the lag it
# reports (max(lag at checkpoint, time since checkpoint)) is summarised.
#
# Usage: scripts/bench-snapshot-lag.sh
# CDCCTL_BIN overrides the binary (default target/release/cdcctl).
set -euo pipefail

bin=${CDCCTL_BIN:-target/release/cdcctl}
rows=${ROWS:-10000000}
rate=${READ_RATE:-100000}
readers_list=${READERS:-0 1 2}
[ -x "$bin" ] || { echo "no $bin: cargo build --release --bin cdcctl" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
demo=$(cd "$(dirname "$0")/.." && pwd)/src/source/sim/scenarios/demo.toml
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

{
  sed -e 's/^name = "demo"/name = "bench-snapshot-lag"/' \
      -e "s/^warmup_s = .*/warmup_s = 30\nmemory_mb = $(( rows * 12 / 10000 + 200 ))/" \
      -e "s/^\[instance\]/[instance]\nread_rows_per_s = $rate/" "$demo"
  cat <<TOML

[[tables]]
owner = "APP"
name = "BIG"
supplemental_logging = "all"
rows = $rows
weight = 0.05
primary_key = ["ID"]
columns = [
  { name = "ID", type = "NUMBER(18)", nullable = false },
  { name = "STATUS", type = "VARCHAR2(20)" },
  { name = "AMOUNT", type = "NUMBER(12,2)" },
  { name = "CREATED", type = "DATE" },
  { name = "NOTE", type = "VARCHAR2(100)" },
]
TOML
} > "$tmp/lag.toml"

printf '%-8s %12s %10s %10s %10s %8s\n' readers "snapshot s" "rows/s" "lag max s" "lag p50 s" samples
for readers in $readers_list; do
  dir="$tmp/r$readers"
  mkdir -p "$dir"
  (cd "$dir" && exec "$bin" --source "sim:$tmp/lag.toml" run --snapshot-readers "$readers" \
      --output out.jsonl --checkpoint cp.json --status-every 1h 2>run.err) &
  pid=$!
  lags=()
  for _ in $(seq 1 1200); do
    sleep 0.5
    grep -q 'snapshot complete:' "$dir/run.err" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    lag=$("$bin" status --checkpoint "$dir/cp.json" --format json 2>/dev/null \
      | sed -n 's/^  "lag_seconds": \([0-9]*\),$/\1/p' || true)
    [ -n "$lag" ] && lags+=("$lag")
  done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
  line=$(grep 'snapshot complete:' "$dir/run.err" || true)
  [ -n "$line" ] || { echo "readers $readers: the snapshot did not complete" >&2; tail -5 "$dir/run.err" >&2; exit 1; }
  secs=$(sed -n 's/.* rows in \([0-9.]*\) s (.*/\1/p' <<<"$line")
  rps=$(sed -n 's/.*s (\([0-9]*\) rows\/s).*/\1/p' <<<"$line")
  if [ ${#lags[@]} -gt 0 ]; then
    sorted=$(printf '%s\n' "${lags[@]}" | sort -n)
    max=$(tail -1 <<<"$sorted")
    p50=$(sed -n "$(( (${#lags[@]} + 1) / 2 ))p" <<<"$sorted")
  else
    max=-; p50=-
  fi
  printf '%-8s %12s %10s %10s %10s %8s\n' "$readers" "$secs" "$rps" "$max" "$p50" "${#lags[@]}"
  rm -f "$dir/out.jsonl"
done
