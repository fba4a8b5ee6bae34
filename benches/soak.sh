#!/usr/bin/env bash
# Tail soak: runs `cdcctl tail` in a detached 160x50 tmux against the
# simulator scenario benches/soak.toml (50k row changes/s), and every
# SAMPLE_S seconds records the process RSS (VmRSS), the CPU share of the UI
# (main) thread and of the engine thread over the interval, and what the
# screen shows for events/s and the time-lag gauge. Prints a table, then
# medians. Writes only under a temp dir.
#
#   benches/soak.sh [MINUTES] [BINARY]      (defaults: 10, target/release/cdcctl)
#
# RATE=N overrides the scenario's `[workload] rate` (actions/s; with
# 10-change transactions, changes/s are 10/11 of it); DURATION_S and
# SAMPLE_S override the length and the sampling period in seconds; SOAK_TOML
# another scenario file.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-10}
BIN=$(realpath "${2:-target/release/cdcctl}")
SAMPLE_S=${SAMPLE_S:-10}
DURATION_S=${DURATION_S:-$((MINUTES * 60))}
TMUX=${TMUX_BIN:-/usr/bin/tmux}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/cdcctl-soak.XXXXXX")
SCENARIO="$DIR/soak.toml"
if [ -n "${RATE:-}" ]; then
  sed "s/^rate = .*/rate = $RATE/" "${SOAK_TOML:-benches/soak.toml}" >"$SCENARIO"
else
  cp "${SOAK_TOML:-benches/soak.toml}" "$SCENARIO"
fi
SOCK="$DIR/tmux.sock"
HZ=$(getconf CLK_TCK)
cleanup() { "$TMUX" -S "$SOCK" kill-server 2>/dev/null || true; }
trap cleanup EXIT

# The pane runs cdcctl itself (exec), so the pane's pid is the process.
"$TMUX" -S "$SOCK" new-session -d -x 160 -y 50 -s soak \
  "cd '$DIR' && exec '$BIN' --source 'sim:$SCENARIO' tail SINFOR.ORDERS 2>'$DIR/stderr'"
PID=$("$TMUX" -S "$SOCK" display -p -t soak '#{pane_pid}')

# utime+stime in ticks of the main thread (tid = pid) and the engine thread.
ticks() {
  local ui=0 eng=0 t name v
  for t in /proc/"$PID"/task/*; do
    name=$(cat "$t/comm" 2>/dev/null) || continue
    v=$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null) || continue
    if [ "${t##*/}" = "$PID" ]; then ui=$v; elif [ "$name" = cdcctl-engine ]; then eng=$v; fi
  done
  echo "$ui $eng"
}

printf '%6s %10s %9s %9s %10s %8s\n' elapsed_s rss_mib ui_cpu% eng_cpu% events/s lag
read -r ui0 eng0 < <(ticks)
: >"$DIR/samples"
got0=0
for ((s = SAMPLE_S; s <= DURATION_S; s += SAMPLE_S)); do
  sleep "$SAMPLE_S"
  kill -0 "$PID" 2>/dev/null || { echo "cdcctl exited: $(cat "$DIR/stderr")"; exit 1; }
  rss=$(awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' /proc/"$PID"/status)
  read -r ui1 eng1 < <(ticks)
  ui=$(awk -v a="$ui0" -v b="$ui1" -v hz="$HZ" -v s="$SAMPLE_S" 'BEGIN {printf "%.1f", (b - a) * 100 / hz / s}')
  eng=$(awk -v a="$eng0" -v b="$eng1" -v hz="$HZ" -v s="$SAMPLE_S" 'BEGIN {printf "%.1f", (b - a) * 100 / hz / s}')
  ui0=$ui1 eng0=$eng1
  screen=$("$TMUX" -S "$SOCK" capture-pane -p -t soak)
  printf '%s\n' "$screen" >"$DIR/screen-$s.txt"
  # The time-lag gauge's value ("... 0s│" at the end of the line under the
  # "Time lag" box's top border; the cause line sits above the gauges).
  # Events received over the interval, from "Changes: 10,000 kept of N received".
  got=$(printf '%s\n' "$screen" | sed -n 's/.*kept of \([0-9,]*\) received.*/\1/p' | tr -d , | head -1)
  evs=$(( (${got:-0} - got0) / SAMPLE_S ))
  got0=${got:-0}
  lag=$(printf '%s\n' "$screen" | awk '/Time lag/ {getline; print; exit}' | sed 's/│$//; s/.*[░▒▓█ ]\([0-9][0-9a-z.]*\)$/\1/')
  printf '%6s %10s %9s %9s %10s %8s\n' "$s" "$rss" "$ui" "$eng" "${evs:-?}" "${lag:-?}"
  echo "$s $rss $ui $eng ${evs:-0}" >>"$DIR/samples"
done

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo
echo "medians over ${DURATION_S} s: events/s $(awk '{print $5}' "$DIR/samples" | median)," \
  "UI thread $(awk '{print $3}' "$DIR/samples" | median)% of a core," \
  "engine thread $(awk '{print $4}' "$DIR/samples" | median)%"
echo "RSS at each minute (MiB): $(awk -v s="$SAMPLE_S" '($1 % 60) == 0 {printf "%s ", $2}' "$DIR/samples")"
echo "scenario rate: $(sed -n 's/^rate = //p' "$SCENARIO") actions/s; load: $(uptime)"
echo "screens: $DIR"
