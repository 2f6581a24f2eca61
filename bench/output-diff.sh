#!/bin/bash
# The same commands through two accelbench binaries, every number masked, the differing lines
# counted: which lines of the output a change altered, beyond the measured values. Both sides get
# the settings --quick stands for, spelled out (older binaries' sweeps have no --quick).
# Usage: bench/output-diff.sh BEFORE_BINARY AFTER_BINARY [OUT_DIR]
set -u
BASE=$1
AFTER=$2
out=${3:-/tmp/output-diff}; rm -rf $out; mkdir -p $out
export XDG_DATA_HOME=$out/xdg COLUMNS=200
Q="--ci-target 0.05 --min-samples 5 --min-time 0.2s --max-time-per-point 10s --budget 60s --no-save"
cmds=(
 "run --quick --no-save --no-progress"
 "sweep batch --model mlp --device cpu --from 16 --to 64 $Q"
 "sweep precision --model mlp --device cpu --dtypes float32,bfloat16 $Q"
 "sweep threads --model mlp --max-threads 2 $Q"
 "sweep workers --model mlp --device cpu --max-workers 1 $Q"
 "sweep crossover --model mlp --device cpu $Q"
)
i=0
for c in "${cmds[@]}"; do
  i=$((i+1))
  extra=""; [[ $c == run* ]] && extra="--rounds 1"
  echo "$c" > $out/$i.cmd
  $BASE $c > $out/$i.base.out 2> $out/$i.base.err; echo "rc=$?" >> $out/$i.base.err
  $AFTER $c $extra > $out/$i.after.out 2> $out/$i.after.err; echo "rc=$?" >> $out/$i.after.err
  for k in base after; do cat $out/$i.$k.out $out/$i.$k.err | sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' > $out/$i.$k.masked; done
  echo "== $c: $(diff $out/$i.base.masked $out/$i.after.masked | grep -c '^[<>]') differing lines (masked)"
done
