#!/usr/bin/env bash
# Train the Cumisitha evaluation network (crates/cumisitha/src/ai/nnue.bin)
# from nothing, reproducibly, in three generations:
#   1. self-play games of the engine with the hand-written evaluation
#      (`--hce`) at a fixed number of nodes a move, from the 50 book openings
#      plus seeded random plies; every quiet position is kept with the
#      engine's search score and the game's result (examples/texel_datagen.rs,
#      the same data the Texel tuner reads);
#   2. a first network trained from random weights to predict the search
#      score (examples/nnue_train.rs);
#   3. more self-play games, played by that first network (`--net`);
#   4. a second network trained from random weights on both sets;
#   5. more self-play games, played by the second network;
#   6. the network trained from random weights on all three sets of
#      positions, written over nnue.bin.
# Then rebuild and test the new network with an SPRT against the old build,
# or against the hand-written evaluation in the same build:
#   tabula uci-match --engine '/path/to/old/tabula uci' --movetime 50 \
#       --random-plies 4 --concurrency 2 --games 2000 --sprt 0,10
#
# Usage: scripts/cumisitha-nnue.sh [GAMES1] [GAMES2] [GAMES3] [NODES] [THREADS] [EPOCHS]
#   defaults: 12000, 8600 and 8600 games, 5000 nodes a move, 2 threads,
#   60 epochs (seeds 11, 12 and 13 for the three generations)
# The data (about 3.7 million positions, 220 MB) stays in target/nnue/.
# About three hours on 2 cores: 52 + 47 + 40 minutes of games, 3 + 5 + 8
# of training.
set -euo pipefail
cd "$(dirname "$0")/.."
games1=${1:-12000}
games2=${2:-8600}
games3=${3:-8600}
nodes=${4:-5000}
threads=${5:-2}
epochs=${6:-60}
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
net2="$out/net-generation2.bin"
if [ ! -s "$net2" ]; then
    "$train" --data "$data1" --data "$data2" --epochs "$epochs" --threads "$threads" --seed 12 --out "$net2"
fi
data3="$out/data-seed13-$games3-$nodes-generation2.txt"
if [ ! -s "$data3" ]; then
    "$datagen" --games "$games3" --nodes "$nodes" --threads "$threads" --seed 13 --net "$net2" --out "$data3.partial"
    mv "$data3.partial" "$data3"
fi
"$train" --data "$data1" --data "$data2" --data "$data3" --epochs "$epochs" --threads "$threads" --seed 13 \
    --out crates/cumisitha/src/ai/nnue.bin
echo "wrote crates/cumisitha/src/ai/nnue.bin; rebuild and test it with an SPRT"
