#!/usr/bin/env bash
# Installs what accelbench needs to build and test, only what is missing:
#  - Debian packages (CLI11, nlohmann-json, fmt, SQLite, GoogleTest, zlib, Fashion-MNIST, Ninja, CMake)
#  - a project-local virtual environment .venv with the torch pip package (libtorch comes from it)
# Idempotent and quick when everything is present. Usage: scripts/setup.sh [--tests].
# Set ACCELBENCH_TORCH_SPEC to choose another torch.
set -euo pipefail
cd "$(dirname "$0")/.."

# With --tests also what only the tests need: chromium (the browser test renders the HTML report
# headless; about 80 MB, a minute to install) and man-db (the install test reads the man page).
# `make run` and `make build` call it without: running needs neither.
debs=(libcli11-dev nlohmann-json3-dev libfmt-dev libsqlite3-dev libgtest-dev zlib1g-dev
      dataset-fashion-mnist ninja-build cmake g++ python3-venv)
# The sanitizer step of `make test` (make test-sanitizers) needs g++'s ASan and UBSan runtimes
# (libasan, libubsan: Debian's g++ brings them); a g++ without them gets Debian's g++.
if [[ ${1:-} == --tests ]]; then debs+=(chromium man-db); fi
sanitizers_missing() {
  [[ ${1:-} == --tests ]] && command -v g++ >/dev/null 2>&1 &&
    ! echo 'int main() { return 0; }' | g++ -fsanitize=address,undefined -x c++ - -o /dev/null 2>/dev/null
}
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${debs[@]}"; do
    # cmake/g++ may come from elsewhere (pip, pyenv): only ask apt when the command is absent too
    case $p in cmake) command -v "$p" >/dev/null 2>&1 && continue ;; esac
    case $p in g++) command -v "$p" >/dev/null 2>&1 && ! sanitizers_missing "${1:-}" && continue ;; esac
    case $p in python3-venv) python3 -c 'import venv, ensurepip' 2>/dev/null && continue ;; esac
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "setup: installing Debian packages: ${missing[*]}" >&2
    sudo_cmd=""; [[ $(id -u) == 0 ]] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
elif [[ $(uname) == Darwin ]]; then
  echo "setup: on macOS install the dependencies with: brew install cmake ninja cli11 nlohmann-json fmt sqlite googletest" >&2
fi

torch_spec=${ACCELBENCH_TORCH_SPEC:-torch==2.13.0}
if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -c 'import torch' 2>/dev/null; then
  echo "setup: creating .venv with $torch_spec" >&2
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check "$torch_spec" 2>&1 \
    | grep -v "is ignored: it is neither a file nor a directory" || true
  .venv/bin/python -c 'import torch' 2>/dev/null || { echo "setup: failed to install $torch_spec into .venv" >&2; exit 1; }
fi
