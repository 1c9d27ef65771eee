#!/usr/bin/env bash
# Installs the Debian 12 packages odcnsim needs (only those missing) and builds it in Release mode.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make pkg-config libsimgrid-dev libboost-graph-dev libfmt-dev libgtest-dev libyaml-cpp-dev
          nlohmann-json3-dev libcli11-dev coinor-libcbc-dev libprotobuf-dev protobuf-compiler zlib1g-dev python3-matplotlib python3-pandas python3-numpy parallel
          ${ODCN_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
