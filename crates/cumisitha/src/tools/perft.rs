//! Perft: count the leaf nodes of the legal move tree, to check the move
//! generator against published counts. Positions whose game is over under
//! Cumisitha rules are still expanded as chess (perft counts chess moves,
//! which the published numbers are).

use crate::notation::format_uci;
use cozy_chess::Board;
use std::io::Write;

/// Leaf nodes at `depth` below `board`.
pub fn perft(board: &Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => {
            let mut n = 0u64;
            board.generate_moves(|pm| {
                n += pm.len() as u64;
                false
            });
            n
        }
        _ => {
            let mut n = 0u64;
            board.generate_moves(|pm| {
                for m in pm {
                    let mut child = board.clone();
                    child.play_unchecked(m);
                    n += perft(&child, depth - 1);
                }
                false
            });
            n
        }
    }
}

/// Perft with a line per root move (`e2e4: 20`), a blank line, and the
/// total alone on the last line. Moves are written in UCI, sorted.
pub fn divide(board: &Board, depth: u32, out: &mut dyn Write) -> std::io::Result<u64> {
    let mut moves = Vec::new();
    crate::rules::chess_moves(board, &mut moves);
    let mut lines: Vec<(String, u64)> = moves
        .iter()
        .map(|&m| {
            let mut child = board.clone();
            child.play_unchecked(m);
            (format_uci(board, m), if depth == 0 { 1 } else { perft(&child, depth - 1) })
        })
        .collect();
    lines.sort();
    let mut total = 0;
    for (m, n) in &lines {
        writeln!(out, "{m}: {n}")?;
        total += n;
    }
    if depth == 0 {
        total = 1;
    }
    writeln!(out)?;
    writeln!(out, "{total}")?;
    Ok(total)
}

/// The six standard positions of the chessprogramming.org perft page with
/// their published counts for depths 1, 2, 3, ...
pub const STANDARD_POSITIONS: &[(&str, &str, &[u64])] = &[
    (
        "initial",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8_902, 197_281, 4_865_609, 119_060_324],
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48, 2_039, 97_862, 4_085_603, 193_690_690],
    ),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", &[14, 191, 2_812, 43_238, 674_624, 11_030_083]),
    (
        "position 4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264, 9_467, 422_333, 15_833_292],
    ),
    (
        "position 5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1_486, 62_379, 2_103_487, 89_941_194],
    ),
    (
        "position 6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2_079, 89_890, 3_894_594, 164_075_551],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every standard position to the deepest depth within about 5 million nodes.
    #[test]
    fn standard_positions_match_published_counts() {
        for (name, fen, counts) in STANDARD_POSITIONS {
            let board = crate::notation::fen::parse(fen).unwrap();
            for (i, &expected) in counts.iter().enumerate() {
                if expected > 5_000_000 {
                    break;
                }
                let depth = i as u32 + 1;
                assert_eq!(perft(&board, depth), expected, "{name} depth {depth}");
            }
        }
    }

    #[test]
    fn divide_ends_with_the_total_alone() {
        let mut out = Vec::new();
        let total = divide(&Board::default(), 2, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(total, 400);
        assert_eq!(text.lines().last(), Some("400"));
        assert!(text.contains("e2e4: 20\n"));
        assert_eq!(text.lines().filter(|l| l.contains(": ")).count(), 20);
    }
}
