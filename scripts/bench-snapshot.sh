#!/usr/bin/env bash
# Snapshot throughput into the file sink on the simulator, with peak RSS.
#
# For each row count, a one-table scenario (APP.BIG, 5 columns, a light
# workload) is written to a temp dir and release-build commands run under
# /usr/bin/time -v:
#   baseline:  cdcctl --source sim:FILE preflight
#              (the simulator itself, holding the table in memory)
#   snapshot:  cdcctl --source sim:FILE?clock=virtual run APP.BIG \
#                --snapshot initial-only --snapshot-readers N \
#                --output out.jsonl --checkpoint cp.json
#              for each N of READERS (default "0 1 2"; 0 reads on the
#              mining session between windows)
# The snapshot's own memory is its peak RSS minus the baseline's: that part
# must stay flat in the table size. Rows/s is the run's own figure (the
# "snapshot complete" line), so the simulator's start-up is not counted.
#
# Usage: scripts/bench-snapshot.sh [ROWS ...]   (default: 1000000 10000000)
# The scenario's memory_mb lets the simulator hold the table (about 1.2 KB a
# row at most; the five-column table took 4.3 GB for ten million rows).
# CDCCTL_BIN overrides the binary (default target/release/cdcctl; build it
# with `cargo build --release --bin cdcctl`). CHUNK sets --snapshot-chunk-rows.
set -euo pipefail

bin=${CDCCTL_BIN:-target/release/cdcctl}
chunk=${CHUNK:-10000}
readers_list=${READERS:-0 1 2}
[ -x "$bin" ] || { echo "no $bin: cargo build --release --bin cdcctl" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- 1000000 10000000

peak_kb() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }

printf '%-10s %8s %12s %14s %14s %14s %12s\n' rows readers "rows/s" "baseline MiB" "snapshot MiB" "own MiB" "output MiB"
for rows in "$@"; do
  dir="$tmp/$rows"
  mkdir -p "$dir"
  cat > "$dir/big.toml" <<TOML
name = "bench-snapshot"
description = "one table of $rows rows for the snapshot benchmark"
seed = 7
memory_mb = $(( rows * 12 / 10000 + 200 ))
start_time = "2025-03-01T09:00:00"
warmup_s = 10

[instance]
version = "19c"
db_name = "BENCH"
undo_retention_s = 3600

[connection]
user = "CDCCTL"

[[tables]]
owner = "APP"
name = "BIG"
supplemental_logging = "all"
rows = $rows
weight = 1.0
primary_key = ["ID"]
columns = [
  { name = "ID", type = "NUMBER(18)", nullable = false },
  { name = "STATUS", type = "VARCHAR2(20)" },
  { name = "AMOUNT", type = "NUMBER(12,2)" },
  { name = "CREATED", type = "DATE" },
  { name = "NOTE", type = "VARCHAR2(100)" },
]

[workload]
rate = 5.0
insert = 20
update = 70
delete = 10
TOML
  (cd "$dir" && /usr/bin/time -v "$bin" --source "sim:$dir/big.toml" preflight \
      >/dev/null 2>"$dir/base.err" || true)
  base=$(peak_kb "$dir/base.err")
  for readers in $readers_list; do
    (cd "$dir" && rm -f out.jsonl cp.json && /usr/bin/time -v "$bin" \
        --source "sim:$dir/big.toml?clock=virtual" run APP.BIG --snapshot initial-only \
        --snapshot-chunk-rows "$chunk" --snapshot-readers "$readers" \
        --output out.jsonl --checkpoint cp.json --status-every 1h 2>"$dir/run.err")
    snap=$(peak_kb "$dir/run.err")
    rate=$(sed -n 's/.*snapshot complete:.*(\([0-9]*\) rows\/s).*/\1/p' "$dir/run.err")
    read_rows=$(grep -c '"op":"r"' "$dir/out.jsonl" || true)
    [ $((read_rows * 100)) -ge $((rows * 99)) ] || { echo "only $read_rows of $rows rows read" >&2; cat "$dir/run.err" >&2; exit 1; }
    out_mb=$(( $(stat -c %s "$dir/out.jsonl") / 1048576 ))
    printf '%-10s %8s %12s %14s %14s %14s %12s\n' "$rows" "$readers" "$rate" $((base / 1024)) \
      $((snap / 1024)) $(((snap - base) / 1024)) "$out_mb"
  done
  rm -f "$dir/out.jsonl"
done
