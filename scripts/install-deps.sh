#!/usr/bin/env bash
# Installs the Debian packages ccforge builds against; skips those already present.
# CUDA and NCCL are optional and taken from /usr/local/cuda when it exists (never installed here).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  libboost-graph-dev libeigen3-dev libtbb-dev libpugixml-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libplplot-dev plplot-driver-cairo
  clang libclang-rt-14-dev
  libopenmpi-dev openmpi-bin
  shellcheck
)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
