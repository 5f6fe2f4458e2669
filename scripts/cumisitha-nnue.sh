#!/usr/bin/env bash
# Train the Cumisitha evaluation network (crates/cumisitha/src/ai/nnue.bin)
# from nothing, reproducibly, in two generations:
#   1. self-play games of the engine with the hand-written evaluation
#      (`--hce`) at a fixed number of nodes a move, from the 50 book openings
#      plus seeded random plies; every quiet position is kept with the
#      engine's search score and the game's result (examples/texel_datagen.rs,
#      the same data the Texel tuner reads);
#   2. a first network trained from random weights to predict the search
#      score (examples/nnue_train.rs);
#   3. more self-play games, played by that first network (`--net`);
#   4. the network trained from random weights on both sets of positions,
#      written over nnue.bin.
# Then rebuild and test the new network with an SPRT against the old build,
# or against the hand-written evaluation in the same build:
#   tabula uci-match --engine '/path/to/old/tabula uci' --movetime 50 \
#       --random-plies 4 --concurrency 2 --games 2000 --sprt 0,10
#
# Usage: scripts/cumisitha-nnue.sh [GAMES1] [GAMES2] [NODES] [THREADS] [EPOCHS]
#   defaults: 12000 and 8600 games, 5000 nodes a move, 2 threads, 60 epochs
#   (seeds 11 for the first generation, 12 for the second)
# The data (about 2.6 million positions, 210 MB) stays in target/nnue/.
# About two hours on 2 cores: 52 + 50 minutes of games, 3 + 9 of training.
set -euo pipefail
cd "$(dirname "$0")/.."
games1=${1:-12000}
games2=${2:-8600}
nodes=${3:-5000}
threads=${4:-2}
epochs=${5:-60}
out=target/nnue
mkdir -p "$out"
cargo build --release -q -p tabula-cumisitha --example texel_datagen --example nnue_train
datagen=target/release/examples/texel_datagen
train=target/release/examples/nnue_train

data1="$out/data-seed11-$games1-$nodes-hce.txt"
if [ ! -s "$data1" ]; then
    "$datagen" --games "$games1" --nodes "$nodes" --threads "$threads" --seed 11 --hce --out "$data1.partial"
    mv "$data1.partial" "$data1"
fi
net1="$out/net-generation1.bin"
if [ ! -s "$net1" ]; then
    "$train" --data "$data1" --epochs "$epochs" --threads "$threads" --seed 11 --out "$net1"
fi
data2="$out/data-seed12-$games2-$nodes-generation1.txt"
if [ ! -s "$data2" ]; then
    "$datagen" --games "$games2" --nodes "$nodes" --threads "$threads" --seed 12 --net "$net1" --out "$data2.partial"
    mv "$data2.partial" "$data2"
fi
"$train" --data "$data1" --data "$data2" --epochs "$epochs" --threads "$threads" --seed 12 \
    --out crates/cumisitha/src/ai/nnue.bin
echo "wrote crates/cumisitha/src/ai/nnue.bin; rebuild and test it with an SPRT"
