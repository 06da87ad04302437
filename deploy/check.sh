#!/usr/bin/env bash
# Validates the deployment files against their published schemas, with checkers from PyPI
# (installed into target/deploy-venv the first time): the Kubernetes manifests by
# kubernetes-validate (strict: unknown fields fail), the compose file by check-jsonschema's copy of
# the Compose Specification's schema. No cluster or container engine is needed. (The Dockerfile is
# built by `docker build`, which needs a registry for its base images: not run here.)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/target/deploy-venv"
if [ ! -x "$venv/bin/kubernetes-validate" ] || [ ! -x "$venv/bin/check-jsonschema" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "kubernetes-validate==1.37.0" "check-jsonschema==0.39.0"
fi
"$venv/bin/kubernetes-validate" --strict --kubernetes-version 1.37.0 \
    "$root"/deploy/kubernetes/*.yaml
"$venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec "$root/deploy/compose.yaml"
