#!/usr/bin/env bash
# Fuzzes the host's parsers of what it does not control, with cargo-fuzz (libFuzzer, AddressSanitizer,
# nightly Rust), each target for a bounded time:
#   manifest      a guest's manifest JSON as the host loads it, then the Cedar schema and policies
#                 built from it (envs/contract `Manifest::parse`, policies `EnvPolicies::new`);
#   policy_file   a `serve --policies` Cedar file validated against a built-in env's generated
#                 schema (first byte: which env);
#   request_body  a REST request body (create, step, batch) as the API parses it (wire);
#   step_check    the step pipeline before the sandbox: a step parsed, its arguments validated,
#                 the call judged by the env's policies with guest-named resources;
#   guest_output  a guest's JSON outputs (observations, resources, sensitive items, outcomes);
#   disclosure    the information-flow search over agent payloads for guest-named items (flow);
#   suite_file    a scenario file as `run --suite DIR` loads it (datasets);
#   saved_state   a parked episode's saved state as each built-in env loads it back (sdk).
# Each run starts from the seeds in fuzz/seeds/<target>/ (built-in manifests, policies, request
# bodies, the safety suite's files, ...) and the corpus earlier runs grew in fuzz/corpus/<target>/
# (ignored by git). A crash, a timeout
# (10 s) or an allocation past 2 GiB fails the run; the input is kept in fuzz/artifacts/<target>/
# and `cargo +nightly-2026-10-30 fuzz run <target> <file>` replays it. A crash found becomes a
# regression test beside the code it hit. A large corpus is first replayed whole, which can take
# longer than SECONDS.
#
# Usage: fuzz/run.sh [SECONDS-PER-TARGET] [TARGET...]   (default: 60 s, every target)
# Set-up (first run): the pinned nightly toolchain (rustup) and cargo-fuzz (`cargo install`,
# ~1 min); building the targets with the sanitizer takes ~3 to 5 minutes the first time, seconds
# after.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(manifest policy_file request_body step_check guest_output disclosure suite_file
    saved_state)

# A pinned nightly, so that CI fuzzes with the same compiler every day.
toolchain="nightly-2026-10-30"
rustup toolchain install "$toolchain" --profile minimal > /dev/null 2>&1 ||
    rustup toolchain install "$toolchain" --profile minimal
if ! command -v cargo-fuzz > /dev/null; then
    cargo install cargo-fuzz --locked --version 0.13.2
fi

for target in "${targets[@]}"; do
    corpus="fuzz/corpus/$target"
    artifacts="fuzz/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    echo "fuzzing $target for $seconds s" >&2
    cargo "+$toolchain" fuzz run --fuzz-dir fuzz "$target" "$corpus" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$artifacts/" -print_final_stats=1
    echo "$target: corpus of $(find "$corpus" -type f | wc -l) inputs" >&2
done
