#!/usr/bin/env bash
# Rebuilds the committed schema-3 stores with the code that wrote them (see README.md):
# each commit's tree is exported with `git archive` and its own `warmup ingest` run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

checkout() {  # commit -> $work/<commit>
  mkdir -p "$work/$1"
  git -C "$repo" archive "$1" | tar -x -C "$work/$1"
}

warmup_at() {  # commit, then warmup arguments; run from this folder
  local commit=$1
  shift
  (cd "$here" && PYTHONPATH="$work/$commit" python -m toolkit "$@")
}

finish() {  # store name: no WAL left, gzip without a timestamp
  test ! -e "$work/$1.duckdb.wal"
  gzip -9n -c "$work/$1.duckdb" >"$here/$1.duckdb.gz"
}

# 1. schema 3 as first shipped (main before 002/003 were edited in place)
checkout 9fd0556
warmup_at 9fd0556 ingest --db "$work/schema3-9fd0556.duckdb" inputs/jvm-iterations.csv \
  inputs/oldsys
finish schema3-9fd0556

# 2. schema 3 as edited (the trust branch's base): every data table holds rows
checkout d176350
db="$work/schema3-d176350.duckdb"
warmup_at d176350 ingest --db "$db" inputs/jvm-iterations.csv inputs/oldsys inputs/shop.jtl \
  inputs/api.xml inputs/jmeter.log "$work/d176350/fixtures/profiles"
finish schema3-d176350
