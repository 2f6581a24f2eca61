#!/usr/bin/env bash
# pip install into a scratch virtual environment, a run from the installed command, and the
# uninstall, checked:
#   1. ENV_DIR: a virtual environment (made when absent, from the base interpreter of SOURCE/.venv,
#      without system site-packages) with the torch of SOURCE/.venv installed by pip (this machine:
#      its wheel from pip's find-links; a clone without .venv: PIP_TEST_TORCH, default torch, under
#      python3) and scikit-build-core; an ENV_DIR that exists is used as it is;
#   2. the list of the environment's files, then `pip install --no-build-isolation SOURCE` (the
#      build folder ENV_DIR/../pip-build kept for the next run; ccache when there is one);
#   3. from another folder, with a PATH without the environment: `accelbench --version` names the
#      torch it was built against; `doctor` names the installed engine, that torch and the
#      environment's interpreter for the Python cases; `run --quick --models mlp --impl cpp,python`
#      measures both loops (exit 0), the Python one under the environment's interpreter;
#   4. `pip uninstall accelbench`: the environment's file list is the one before the install.
# Usage: pip_install_test.sh SOURCE_DIR ENV_DIR
set -euo pipefail
src=$(cd "$1" && pwd) env=$2
mkdir -p "$(dirname "$env")"
env=$(cd "$(dirname "$env")" && pwd)/$(basename "$env")
build_dir=$(dirname "$env")/pip-build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "pip_install_test: FAIL: $*"; exit 1; }
step() { echo "pip_install_test: $* ($(date +%T))"; }

if [[ ! -x $env/bin/python ]]; then
  # The torch of SOURCE/.venv (make build's) and its interpreter; without one, PIP_TEST_TORCH
  # (default: torch) under python3.
  torch_spec=${PIP_TEST_TORCH:-torch} base=python3
  if [[ -z ${PIP_TEST_TORCH:-} && -x $src/.venv/bin/python ]]; then
    torch_spec="torch==$("$src/.venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))')" \
      || fail "no torch in $src/.venv"
    base=$("$src/.venv/bin/python" -c 'import sys; print(sys._base_executable)')
  fi
  step "a fresh virtual environment $env ($base) with $torch_spec and scikit-build-core"
  "$base" -m venv "$env"
  "$env/bin/python" -m pip install -q "$torch_spec" scikit-build-core 2>&1 | grep -v "is ignored: it is neither" || true
fi
py=$env/bin/python
"$py" -c 'import importlib.util as u, sys; sys.exit(0 if u.find_spec("torch") and u.find_spec("scikit_build_core") else 1)' \
  || fail "$env lacks torch or scikit-build-core"
if "$py" -m pip show -q accelbench >/dev/null 2>&1; then
  step "accelbench left over from an earlier run: uninstalled first"
  "$py" -m pip uninstall -y -q accelbench
fi
files() { find "$env" \( -type f -o -type l \) | LC_ALL=C sort; }
files >"$tmp/before.txt"
find "$env" -type d | LC_ALL=C sort >"$tmp/dirs-before.txt"

step "pip install --no-build-isolation $src"
start=$(date +%s)
"$py" -m pip install --no-build-isolation -C build-dir="$build_dir" "$src" >"$tmp/install.log" 2>&1 \
  || { tail -40 "$tmp/install.log"; fail "pip install"; }
step "installed in $(( $(date +%s) - start )) s"
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
for f in "$env/bin/accelbench" "$site/accelbench/accelbench-engine" "$site/accelbench/build.json" \
         "$site/accelbench_worker/__main__.py" "$env/share/man/man1/accelbench.1" \
         "$env/share/bash-completion/completions/accelbench"; do
  [[ -e $f ]] || fail "not installed: $f"
done
# No libtorch copied: the engine's only torch is the environment's, by a relative RPATH.
find "$env" -name 'libtorch*' -newer "$tmp/before.txt" | grep -q . && fail "a libtorch was installed"
if command -v readelf >/dev/null 2>&1; then
  readelf -d "$site/accelbench/accelbench-engine" | grep -q 'R.*PATH.*\$ORIGIN/../torch/lib' \
    || fail "the engine's RPATH is not \$ORIGIN/../torch/lib: $(readelf -d "$site/accelbench/accelbench-engine" | grep PATH)"
fi

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
run_path=/usr/bin:/bin  # no python3 with torch on it: the Python cases must take the environment's
version=$(PATH=$run_path "$env/bin/accelbench" --version) || fail "--version"
torch_built=$("$py" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["torch_version"])' "$site/accelbench/build.json")
[[ $version == "accelbench "*"built against torch $torch_built"* ]] || fail "--version: $version"
echo "$version"
PATH=$run_path COLUMNS=400 ACCELBENCH_DB="$tmp/doctor.db" "$env/bin/accelbench" doctor >"$tmp/doctor.txt" 2>&1 || true
grep -q "^engine       $site/accelbench/accelbench-engine\$" "$tmp/doctor.txt" || fail "doctor's engine line: $(cat "$tmp/doctor.txt")"
grep -q "^torch build  built against $torch_built (.*); loaded $torch_built (.*) from $site/torch/lib\$" "$tmp/doctor.txt" \
  || fail "doctor's torch line: $(grep -i torch "$tmp/doctor.txt")"
grep -q "^python cases $py (Python " "$tmp/doctor.txt" || fail "doctor's python line: $(grep python "$tmp/doctor.txt")"

step "accelbench run --quick --models mlp --impl cpp,python from $tmp/elsewhere"
start=$(date +%s)
set +e
PATH=$run_path "$env/bin/accelbench" run --quick --models mlp --impl cpp,python --db "$tmp/h.db" --no-progress \
  --json "$tmp/run.json" >"$tmp/run.txt" 2>&1
rc=$?
set -e
step "run: exit $rc in $(( $(date +%s) - start )) s"
[[ $rc == 0 ]] || { tail -30 "$tmp/run.txt"; fail "run exit $rc"; }
"$py" - "$tmp/run.json" "$py" "$site" <<'PY' || fail "the run's JSON: $(tail -30 "$tmp/run.txt")"
import json, sys
run = json.load(open(sys.argv[1]))
impls = sorted(c.get("impl") or "cpp" for c in run["cases"] if c["status"] == "ok")
assert impls == ["cpp", "python"], [(c.get("impl"), c["status"], c.get("error")) for c in run["cases"]]
measurer = run["context"]["settings"]["python_measurer"]
assert measurer["interpreter"] == sys.argv[2], measurer
assert measurer["worker"] == sys.argv[3], measurer  # the installed worker, not the source tree's
PY
cd "$src"

step "pip uninstall accelbench"
"$py" -m pip uninstall -y -q accelbench
files >"$tmp/after.txt"
if ! diff "$tmp/before.txt" "$tmp/after.txt" >"$tmp/diff.txt"; then
  cat "$tmp/diff.txt"; fail "the uninstall left the environment's files changed"
fi
step "uninstalled: $(wc -l <"$tmp/after.txt") files before the install and after the uninstall"
# pip leaves the empty folders it made outside site-packages (share/man/man1, ...): said, not failed.
left=$(find "$env" -type d | LC_ALL=C sort | comm -13 "$tmp/dirs-before.txt" - | tr '\n' ' ')
[[ -z $left ]] || echo "pip_install_test: note: empty folders left by pip: $left"
echo "pip_install_test: PASS"
