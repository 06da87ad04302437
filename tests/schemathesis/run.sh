#!/usr/bin/env bash
# Runs schemathesis against `agentbench serve`: requests generated from the server's own OpenAPI
# document (GET /openapi.json), every answer checked against it with all of schemathesis's
# checks, in all four phases: the document's examples, coverage (boundary and invalid values of
# every schema), fuzzing, and the stateful phase, which chains operations (createEpisode ->
# step/fork/abandon/delete/getEpisode ...) through the document's OpenAPI links and the links
# schemathesis infers (from Location headers, and from response fields such as `id` that feed
# path parameters of the same name).
#
# Usage: tests/schemathesis/run.sh URL      [SCHEMATHESIS-RUN-OPTIONS...]
#        tests/schemathesis/run.sh --serve  [SCHEMATHESIS-RUN-OPTIONS...]
#   URL: a running server's base URL, e.g. http://127.0.0.1:18080 (the document is
#   URL/openapi.json). It should be fresh, or at least not at its open-episode limit.
#   URL: pass its key too when it takes keys: `--header "Authorization: Bearer KEY"`.
#   --serve: start target/debug/agentbench (or $AGENTBENCH_BIN) on a free loopback port with a
#   fresh SQLite database under target/tmp/schemathesis/ and an admin key (`--auth keys`), test
#   it with that key, then stop it. Build it first:
#   `cargo build -p agentbench --bin agentbench --locked`.
#   Extra options go to `schemathesis run` after ours and override them (e.g. `--seed 7`,
#   `--max-examples 300`, `--include-operation-id createEpisode --phases coverage,fuzzing`: with
#   operations filtered out, the stateful phase reports "Missing Open API links" as an error
#   unless it is left out).
# Test data (the built-in envs' names) and the per-operation check settings are in
# tests/schemathesis/schemathesis.toml.
# Exits non-zero on any failure. Every failure is printed with a curl command reproducing it;
# a JUnit report is written to target/schemathesis-report/junit.xml, and the failing cases are
# kept in target/schemathesis-cache/ for `target/schemathesis-venv/bin/schemathesis --config-file
# tests/schemathesis/schemathesis.toml replay ID` (ID: the run's "Test Case ID").
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ $# -lt 1 ]]; then
    echo "usage: $0 URL|--serve [schemathesis run options...]" >&2
    exit 2
fi
target="$1"
shift

venv="$(bash tests/schemathesis/setup.sh)"
report_dir="target/schemathesis-report"
mkdir -p "$report_dir"

if [[ "$target" == "--serve" ]]; then
    binary="${AGENTBENCH_BIN:-target/debug/agentbench}"
    if [[ ! -x "$binary" ]]; then
        echo "$binary is missing: cargo build -p agentbench --bin agentbench --locked" >&2
        exit 2
    fi
    work="target/tmp/schemathesis"
    rm -rf "$work"
    mkdir -p "$work"
    db="sqlite://$PWD/$work/agentbench.db"
    key="$("$binary" keys create --scope admin --db "$db" 2> /dev/null)"
    set -- --header "Authorization: Bearer $key" "$@"
    "$binary" serve --addr 127.0.0.1:0 --auth keys --db "$db" 2> "$work/server.log" &
    server=$!
    trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
    # A debug build compiles the envs' WebAssembly before it listens: up to a minute or so.
    url=""
    for _ in $(seq 1 300); do
        url="$(sed -n 's|^agentbench listening on \(http://[^ ]*\)$|\1|p' "$work/server.log")"
        [[ -n "$url" ]] && break
        if ! kill -0 "$server" 2>/dev/null; then
            cat "$work/server.log" >&2
            echo "agentbench serve exited before listening" >&2
            exit 1
        fi
        sleep 1
    done
    if [[ -z "$url" ]]; then
        cat "$work/server.log" >&2
        echo "agentbench serve did not listen within 300 s" >&2
        exit 1
    fi
    echo "testing $url (server log: $work/server.log)" >&2
else
    url="${target%/}"
fi

# --checks all: every check, including negative_data_rejection, positive_data_acceptance,
#   use_after_free (DELETE /v1/episodes/{id} then GET answers 404) and
#   ensure_resource_availability (a created episode can be read back).
# --max-examples 100: at most 100 generated cases per operation in the fuzzing phase (and the
#   stateful phase's budget). The examples and coverage phases are not bounded by it: coverage
#   sends every boundary and invalid variant it derives from the schemas. With 100 a whole run
#   (25 operations, debug build, one worker) takes about a minute on 2 cores, most of it fuzzing;
#   the stateful phase stays short (a few seconds). Raise it locally for a deeper search.
# --seed: the same generated cases on every run, so a failure can be rerun as is. (Runs are not
#   byte-for-byte identical: the stateful phase follows the server's random episode ids.)
# --generation-database none: no .hypothesis/ directory replaying earlier failures, which would
#   make a run depend on the ones before it (and write into the checkout).
# --continue-on-failure: an operation that fails one check keeps being tested, so one run lists
#   every distinct failure instead of only the first of each operation.
# --workers 1: the server under test needs the other core.
# --request-timeout 30: a hang is a failure, not a stuck CI job.
# --output-sanitize false: the curl reproductions show the bodies as sent (by default a field
#   such as `tokens` is printed as "[Filtered]", which makes the reproduction wrong).
# --max-response-time is not set: timing on a shared CI machine is not something to gate on.
# No check or operation is excluded; schemathesis.toml widens positive_data_acceptance's expected
#   statuses on four operations (422 on createEpisode/openenvReset, 426 on the two WebSockets).
"$venv/bin/schemathesis" --config-file tests/schemathesis/schemathesis.toml \
    run "$url/openapi.json" \
    --checks all \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples 100 \
    --seed 20240601 \
    --generation-database none \
    --continue-on-failure \
    --workers 1 \
    --request-timeout 30 \
    --no-color \
    --output-sanitize false \
    --report junit \
    --report-junit-path "$report_dir/junit.xml" \
    "$@"
