#!/bin/sh
# Regenerate the generated topologies in this folder (listed in README). The
# generator is deterministic, so `./regen.sh && git diff --exit-code .` proves
# it. Hand-written files (loop, 2sw2path, single-switch) are not touched.
set -eu
cd "$(dirname "$0")"
gen="python3 ../../contrib/topogen.py"
$gen fattree2 -k 8 -o ft2-k8.topo
$gen fattree3 -k 4 -o ft3-k4.topo
$gen fattree2 -k 8 --degrade 0.1 --seed 1 -o ft2-k8-degraded.topo
$gen fattree3 -k 8 --degrade 0.2 --seed 2 -o ft3-k8-degraded-s2.topo
$gen fattree3 -k 8 --degrade 0.2 --seed 8 -o ft3-k8-degraded-s8.topo
$gen torus2d -x 4 -y 4 -o torus2d-4x4.topo
$gen torus3d -x 3 -y 3 -z 3 -o torus3d-3x3x3.topo
$gen dragonfly -a 4 -p 2 -h 2 -o dragonfly-small.topo
$gen random -n 16 -d 4 --seed 1 -o random-16-d4.topo
$gen parallel -n 4 -o parallel.topo
$gen fattree2 -k 4 --dup-guid -o dupguid.topo
$gen fattree2 -k 4 --dup-guid host -o dupguid-host.topo
