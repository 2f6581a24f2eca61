# Sourced by the bench/device visit scripts (from visit-10 on) on the GPU machine, from the
# repository root with .device/ carried: the output folder $d = $OUT/$1, the environment the runs
# need (data, history location, the commit's label), the binary built into build-device/ ($BIN), and
# the machine's line (driver, clocks, power). t0 is the start, for the script's own timings.
#   [TARGETS="accelbench gpu_tests"] source bench/device/visit-setup.sh FOLDER
OUT=${OUT:-/tmp/accelbench-out}
d="$OUT/$1"
mkdir -p "$d"
export XDG_DATA_HOME=/tmp/xdg PYTHONUNBUFFERED=1
export ACCELBENCH_FASHION_MNIST=$PWD/.device/fashion-mnist
export ACCELBENCH_GIT_COMMIT=${ACCELBENCH_GIT_COMMIT:-$(cat .device/commit 2>/dev/null || echo unknown)}
t0=$(date +%s)
source bench/device/build-targets.sh "$d/build.log" ${TARGETS:-accelbench}
BIN=./build-device/accelbench
echo "build took $(( $(date +%s) - t0 )) s"
$BIN --version 2>&1 | head -2
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw,temperature.gpu,persistence_mode --format=csv,noheader
