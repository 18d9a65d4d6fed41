#!/usr/bin/env bash
# Installs, builds and runs every test (unit tests, CLI checks, the validation gate).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
