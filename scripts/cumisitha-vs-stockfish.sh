#!/usr/bin/env bash
# Strength benchmark of the Cumisitha engine (not a test): Tabula vs Debian's
# stockfish at several Skill Levels, fixed time per move, adjudicated by
# Cumisitha rules, 20 book openings each played with both colours.
#
# Usage: scripts/cumisitha-vs-stockfish.sh [GAMES] [MOVETIME_MS] [LEVELS...]
#   defaults: 40 games, 100 ms, levels 0 3 6 10
# Needs: apt-get install -y stockfish   (installs /usr/games/stockfish)
# Writes a summary line per level to stdout, per-game progress to stderr,
# and every game as PGN to target/cumisitha-vs-stockfish/level-N.pgn.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-40}
movetime=${2:-100}
shift $(( $# > 2 ? 2 : $# ))
levels=("$@")
[ ${#levels[@]} -eq 0 ] && levels=(0 3 6 10)
if ! command -v stockfish >/dev/null && [ ! -x /usr/games/stockfish ]; then
    echo "stockfish is not installed: apt-get update && apt-get install -y stockfish" >&2
    exit 1
fi
cargo build --release -q -p tabula-cli
out=target/cumisitha-vs-stockfish
mkdir -p "$out"
for level in "${levels[@]}"; do
    target/release/tabula uci-match --engine stockfish \
        --engine-option "Skill Level=$level" --engine-option "Threads=1" --engine-option "Hash=16" \
        --movetime "$movetime" --games "$games" --pgn "$out/level-$level.pgn"
done
