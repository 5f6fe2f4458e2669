#!/usr/bin/env bash
# Train the Cumisitha evaluation network (crates/cumisitha/src/ai/nnue.bin)
# from nothing, reproducibly:
#   1. self-play games of the engine at a fixed number of nodes a move, from
#      the 50 book openings plus seeded random plies; every quiet position is
#      kept with the engine's search score and the game's result
#      (examples/texel_datagen.rs, the same data the Texel tuner reads);
#   2. a network trained from random weights to predict the search score
#      (examples/nnue_train.rs), written over nnue.bin.
# Then rebuild and test the new network with an SPRT against the old build,
# or against the hand-written evaluation in the same build:
#   tabula uci-match --engine 'target/release/tabula uci' \
#       --engine-option UseNNUE=false --movetime 50 --random-plies 4 \
#       --concurrency 2 --games 2000 --sprt 0,10
#
# Usage: scripts/cumisitha-nnue.sh [GAMES] [NODES] [THREADS] [SEED] [EPOCHS]
#   defaults: 12000 games, 5000 nodes a move, 2 threads, seed 11, 60 epochs
# The games are played with the hand-written evaluation (`--hce`), so the
# network depends on nothing trained before it.
# The data (about 1.4 million positions, 120 MB) stays in target/nnue/.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-12000}
nodes=${2:-5000}
threads=${3:-2}
seed=${4:-11}
epochs=${5:-60}
out=target/nnue
mkdir -p "$out"
cargo build --release -q -p tabula-cumisitha --example texel_datagen --example nnue_train
data="$out/data-seed$seed-$games-$nodes.txt"
if [ ! -s "$data" ]; then
    target/release/examples/texel_datagen --games "$games" --nodes "$nodes" --threads "$threads" \
        --seed "$seed" --hce --out "$data.partial"
    mv "$data.partial" "$data"
fi
target/release/examples/nnue_train --data "$data" --epochs "$epochs" --threads "$threads" \
    --seed "$seed" --out crates/cumisitha/src/ai/nnue.bin
echo "wrote crates/cumisitha/src/ai/nnue.bin; rebuild and test it with an SPRT"
