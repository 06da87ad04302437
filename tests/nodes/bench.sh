#!/usr/bin/env bash
# Step throughput with 1, 2 and 3 `agentbench serve` nodes on one PostgreSQL database, on this
# machine: for each count, fresh nodes on a fresh database, one `agentbench bench` per node
# stepping its own episodes through it (what sticky routing gives), all at once; prints each
# node's steps/s and their sum. The first line is one node with `--single-node` (no leases), so
# that its ratio to the leased single node is the leases' cost.
#
#   bash tests/nodes/bench.sh [CONCURRENCY_PER_NODE] [DURATION]
#
# Needs `cargo build -p agentbench` (target/debug, or AGENTBENCH=path) and PostgreSQL at
# $AGENTBENCH_TEST_POSTGRES (default postgres://postgres@127.0.0.1:5432/postgres) with psql.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
agentbench="${AGENTBENCH:-$root/target/debug/agentbench}"
admin="${AGENTBENCH_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}"
concurrency="${1:-32}"
duration="${2:-10s}"
work="$(mktemp -d)"
stop_nodes() {
    for pidfile in "$work"/node-*.pid; do
        [ -e "$pidfile" ] || continue
        kill "$(cat "$pidfile")" 2>/dev/null || true
        rm -f "$pidfile"
    done
}
cleanup() {
    stop_nodes
    rm -rf "$work"
}
trap cleanup EXIT

# Starts node $1 with extra flags; waits for its listening line; prints its URL. (Its output
# goes to files: this runs in a command substitution, which waits for its stdout to close.)
start_node() {
    local log="$work/node-$1.log" pidfile="$work/node-$1.pid"
    shift
    "$agentbench" serve --addr 127.0.0.1:0 --db "$db" --db-sync full "$@" >/dev/null 2>"$log" &
    echo $! >"$pidfile"
    for _ in $(seq 600); do
        if grep -q "listening on" "$log"; then
            grep -o "http://[0-9.:]*" "$log" | head -1
            return
        fi
        sleep 0.1
    done
    echo "node did not start: $(cat "$log")" >&2
    exit 1
}

measure() {
    local label="$1" nodes="$2"
    shift 2
    local name="agentbench_bench_$RANDOM$RANDOM"
    psql -q "$admin" -c "CREATE DATABASE $name"
    db="${admin%/*}/$name"
    local urls=()
    for n in $(seq "$nodes"); do urls+=("$(start_node "$n" "$@")"); done
    local outs=()
    for n in $(seq "$nodes"); do
        "$agentbench" bench --server "${urls[$((n - 1))]}" --concurrency "$concurrency" \
            --duration "$duration" --json >"$work/bench-$n.json" &
        outs+=($!)
    done
    for pid in "${outs[@]}"; do wait "$pid"; done
    python3 - "$label" "$work"/bench-*.json <<'PY'
import json, sys
label, files = sys.argv[1], sys.argv[2:]
rates = [json.load(open(f))["steps"]["per_second"] for f in files]
errors = sum(json.load(open(f))["steps"]["errors"] for f in files)
print(f"{label:<24} {sum(rates):8.0f} steps/s  (per node: {', '.join(f'{r:.0f}' for r in rates)}; errors: {errors})")
PY
    stop_nodes
    sleep 1
    rm -f "$work"/bench-*.json
    psql -q "$admin" -c "DROP DATABASE $name WITH (FORCE)"
}

echo "steps over HTTP, $concurrency clients per node, $duration, --db-sync full, PostgreSQL"
measure "1 node, --single-node" 1 --single-node
measure "1 node, leases" 1
measure "2 nodes, leases" 2
measure "3 nodes, leases" 3
