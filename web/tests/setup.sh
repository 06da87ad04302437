#!/usr/bin/env bash
# Installs what the browser tests need, when it is missing: Debian's Chromium (as root, through
# apt; otherwise through sudo) and playwright-core from npm (package-lock.json). Idempotent, so
# tests/tests/web.rs runs it before every browser test run and `.ci/run` runs it up front.
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -x /usr/bin/chromium ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    $sudo apt-get install -y -q chromium
fi

if [ ! -f node_modules/playwright-core/package.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
