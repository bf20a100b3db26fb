#!/usr/bin/env bash
# The benchmark suite: `make bench`, or `bash bench/run.sh` from anywhere.
# Prints one line per case with a PASS/MISS against its target. Exits non-zero
# if a benchmark fails to run, or (with BENCH_STRICT=1) if any target is missed.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
D20=bench/.venv-d20
[ -x "$PY" ] || { echo "no $PY: run 'make bench' (or make test) first" >&2; exit 2; }

# dyce is the `bench` extra; icepool and numpy are referee's own dependencies.
"$PY" -c "import dyce" 2>/dev/null ||
  "$PY" -m pip install --quiet --disable-pip-version-check -e '.[dev,bench]'

# d20 pins lark-parser, which overwrites referee's lark: it gets a venv of its own,
# on the same base interpreter as .venv. (Recreated if its lark is not lark-parser's.)
if ! "$D20/bin/python" -c "import d20, lark; assert lark.__version__ < '1'" 2>/dev/null; then
  echo "creating $D20 (d20 and its pins only) ..."
  rm -rf "$D20"
  "$("$PY" -c 'import sys; print(sys._base_executable)')" -m venv "$D20" &&
    "$D20/bin/pip" install --quiet --disable-pip-version-check d20 2>"$D20/install.log" ||
    echo "could not install d20 (see $D20/install.log); bench_roll will skip it"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0
for b in roll odds sample startup gurps exchange_odds fudge swn gurps_sim fight rooms tracker copy append tables discord gateway bot_start fight_press; do
  "$PY" "bench/bench_$b.py" 2>&1 | tee -a "$log" || { failed=1; echo "bench_$b.py FAILED"; }
  echo
done
# wrk into many rooms (issue 51), side by side with aa80c05 (the rooms before issue 74
# §3's work on a roll's CPU: it prints the ratio of the server's CPU a roll, and the
# rooms' goal) when this checkout has that commit; alone otherwise. Needs Debian's wrk
# (skipped without).
against=()
git cat-file -e aa80c05^{commit} 2>/dev/null && against=(--against aa80c05)
"$PY" bench/bench_wrk.py "${against[@]}" 2>&1 | tee -a "$log" || { failed=1; echo "bench_wrk.py FAILED"; }
echo
# The same load's instructions a roll, counted under callgrind (needs Debian's valgrind),
# beside the same commit.
"$PY" bench/bench_instructions.py "${against[@]}" 2>&1 | tee -a "$log" || { failed=1; echo "bench_instructions.py FAILED"; }
echo
misses=$(grep -cE ' MISS\)?$' "$log")
echo "targets missed: $misses; benchmark errors: $failed"
[ "$failed" = 0 ] && { [ "${BENCH_STRICT:-0}" = 0 ] || [ "$misses" = 0 ]; }
