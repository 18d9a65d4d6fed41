#!/usr/bin/env bash
# Installs what simgpt needs from Debian 12's packages (idempotent) and builds it in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(g++ cmake ninja-build pkg-config libsimgrid-dev libyaml-cpp-dev libfmt-dev libboost-graph-dev libssl-dev
          catch2 libcli11-dev nlohmann-json3-dev zlib1g-dev libbenchmark-dev hyperfine gnuplot-nox python3 python3-yaml bsdutils)
scripts/install_packages.sh "${packages[@]}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
