#!/usr/bin/env bash
# Tune the Cumisitha evaluation from nothing (Texel's method), reproducibly:
#   1. self-play games of the current engine at a fixed number of nodes per
#      move, from the 50 book openings plus seeded random plies; every quiet
#      position is kept with the game's result (examples/texel_datagen.rs);
#   2. the weights that best predict those results through a logistic curve
#      (examples/texel_tune.rs), written over
#      crates/cumisitha/src/ai/params.rs.
# Then check the new weights with an SPRT against the old build, e.g.
#   tabula uci-match --engine '/path/to/old/tabula uci' --nodes 10000 \
#       --random-plies 4 --concurrency 2 --games 20000 --sprt 0,5
#
# Usage: scripts/cumisitha-texel.sh [GAMES] [NODES] [THREADS] [SEED] [EPOCHS]
#   defaults: 24000 games, 5000 nodes a move, 2 threads, seed 1, 400 epochs
# The data (a few hundred MB) stays in target/texel/, never in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-24000}
nodes=${2:-5000}
threads=${3:-2}
seed=${4:-1}
epochs=${5:-400}
out=target/texel
mkdir -p "$out"
cargo build --release -q -p tabula-cumisitha --example texel_datagen --example texel_tune
data="$out/games-seed$seed-$games-$nodes.txt"
if [ ! -s "$data" ]; then
    target/release/examples/texel_datagen --games "$games" --nodes "$nodes" --threads "$threads" \
        --seed "$seed" --out "$data.partial"
    mv "$data.partial" "$data"
fi
target/release/examples/texel_tune --data "$data" --epochs "$epochs" --threads "$threads" \
    --out crates/cumisitha/src/ai/params.rs
echo "wrote crates/cumisitha/src/ai/params.rs; rebuild and test it with an SPRT"
