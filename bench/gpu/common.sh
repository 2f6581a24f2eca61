# Sourced by the bench/gpu experiments, from the repository root:
#   source bench/gpu/common.sh "$@"     (the experiment's first argument is its output folder)
# Sets OUT (that folder, created), BIN (the accelbench binary: $BIN, else build-device/accelbench,
# else build/accelbench), PY (python3, or $PYTHON) and the environment every experiment shares: the
# history and telemetry state in $OUT/xdg (never the user's); Fashion-MNIST where accelbench finds it
# (docs/workloads.md: $ACCELBENCH_FASHION_MNIST names another folder).
# Writes $OUT/machine.txt (GPUs, driver, clocks, power limit, torch) and prints it.
if [[ -z ${1:-} || $1 == -h || $1 == --help ]]; then
  echo "usage: bash $0 OUT_DIR [...]  (from the repository root, the project built)" >&2
  exit 2
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd) || { echo "$0: cannot write into $1" >&2; exit 2; }
shift
if [[ -z ${BIN:-} ]]; then
  for b in ./build-device/accelbench ./build/accelbench; do [[ -x $b ]] && { BIN=$b; break; }; done
fi
[[ -x ${BIN:-} ]] || { echo "$0: no accelbench binary (build-device/ or build/); set BIN=..." >&2; exit 2; }
PY=${PYTHON:-python3}
export XDG_DATA_HOME=$OUT/xdg PYTHONUNBUFFERED=1
T0=$(date +%s)

# The number of CUDA GPUs nvidia-smi sees (0 without a driver).
gpu_count() { nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true; }

# Ends the experiment (exit 2) unless at least N CUDA GPUs are visible.
require_gpus() {
  local n
  n=$(gpu_count)
  if (( n < $1 )); then echo "$0: needs $1 CUDA GPU(s), this machine has $n" >&2; exit 2; fi
}

# Runs a command, then prints its exit status and seconds: timed LABEL CMD...
timed() {
  local label=$1 s rc
  shift
  s=$(date +%s)
  "$@"
  rc=$?
  echo "$label: exit $rc in $(( $(date +%s) - s )) s"
  return $rc
}

{
  date -u +%FT%TZ
  "$BIN" --version 2>&1 | head -1
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader 2>&1
  else
    echo "no nvidia-smi: no CUDA GPU"
  fi
  "$PY" -c 'import torch; print("python torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -1
  echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
