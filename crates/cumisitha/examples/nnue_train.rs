//! Train the evaluation network (`ai::nnue`) from self-play positions, from
//! nothing: the weights start random (seeded) and learn to predict the
//! engine's search score of each position (optionally blended with the
//! game's result, `--lambda`).
//!
//! Input: the lines `examples/texel_datagen.rs` writes, `FEN | RESULT |
//! SCORE` (RESULT White's points, SCORE centipawns from White's side). A
//! line that cannot be read stops the run with its file and line number.
//!
//! The loss is the squared error between `sigmoid(output)` and
//! `λ·sigmoid(score / 400) + (1 − λ)·result`, both from the side to move;
//! the output is in units of 400 centipawns (`nnue::SCALE`). λ is 1 by
//! default: a network that also learnt from the results (λ = 0.75) evaluated
//! about 1.35 times larger than the hand-written evaluation and scored 27%
//! against it in play, where λ = 1 scored about 65%. Adam, batches of
//! 16,384, the rate cut tenfold for the last quarter of the epochs. 2% of the
//! positions are held out to report a validation loss each epoch, beside the
//! hand-written evaluation's loss on them.
//!
//! ```text
//! cargo run --release -p tabula-cumisitha --example nnue_train -- \
//!     --data target/nnue/data.txt --epochs 60 --threads 2 --out crates/cumisitha/src/ai/nnue.bin
//! ```
//! `scripts/cumisitha-nnue.sh` runs the data generator and this.

use cozy_chess::{Color, Piece, Square};
use std::io::BufRead;
use std::time::Instant;
use tabula_cumisitha::ai::nnue::{feature, Network, HIDDEN, INPUTS, SCALE};
mod common;
use common::{at_least_one, positive, unit_interval};

/// Train the Cumisitha evaluation network from `texel_datagen` positions.
#[derive(clap::Parser)]
struct Args {
    /// Positions to learn from (`FEN | RESULT | SCORE` lines); repeat for several files.
    #[arg(long, required = true)]
    data: Vec<std::path::PathBuf>,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 60)]
    epochs: usize,
    /// Threads computing the gradient.
    #[arg(long, default_value_t = 2, value_parser = at_least_one::<usize>)]
    threads: usize,
    /// Weight of the search score against the game result in the target (1: the score alone).
    #[arg(long, default_value_t = 1.0, value_parser = unit_interval::<f32>)]
    lambda: f32,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 0.001, value_parser = positive::<f32>)]
    rate: f32,
    /// Seed of the starting weights and of the shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the quantised network.
    #[arg(long, default_value = "target/nnue/nnue.bin")]
    out: std::path::PathBuf,
}

/// The positions, flat: each one's pieces as White-view feature indices.
struct Data {
    /// White-view feature index of every piece of every position.
    pieces: Vec<u16>,
    /// Where each position's pieces start in `pieces` (one more entry at the end).
    start: Vec<u32>,
    /// Whether Black is to move.
    black: Vec<bool>,
    /// The training target, from the side to move.
    target: Vec<f32>,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Read `FEN | RESULT | SCORE`; the target is from the side to move.
fn parse_line(line: &str, lambda: f32, data: &mut Data) -> Result<(), String> {
    let mut parts = line.split('|').map(str::trim);
    let (Some(fen), Some(result), Some(score), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err("expected 'FEN | RESULT | SCORE'".into());
    };
    let result: f32 = result.parse().map_err(|_| format!("result '{result}' is not a number"))?;
    let score: f32 = score.parse().map_err(|_| format!("score '{score}' is not a number"))?;
    let board = tabula_cumisitha::notation::from_fen(fen).map_err(|e| e.to_string())?;
    let black = board.side_to_move() == Color::Black;
    // In the order a FEN lists them (rank 8 first), as the network was
    // first trained.
    for rank in (0..8).rev() {
        for file in 0..8 {
            let sq = Square::index(rank * 8 + file);
            if let (Some(piece), Some(color)) = (board.piece_on(sq), board.color_on(sq)) {
                data.pieces.push(feature(Color::White, color, piece, sq) as u16);
            }
        }
    }
    let (result, score) = if black { (1.0 - result, -score) } else { (result, score) };
    data.black.push(black);
    data.target.push(lambda * sigmoid(score / SCALE as f32) + (1.0 - lambda) * result);
    data.start.push(data.pieces.len() as u32);
    Ok(())
}

fn read(args: &Args) -> Result<Data, String> {
    let mut data = Data { pieces: Vec::new(), start: vec![0], black: Vec::new(), target: Vec::new() };
    for path in &args.data {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| format!("{}: reading line {}: {e}", path.display(), n + 1))?;
            if line.trim().is_empty() {
                continue;
            }
            parse_line(&line, args.lambda, &mut data).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        }
    }
    Ok(data)
}

/// The Black-view index of a White-view feature: colours swapped, ranks
/// flipped.
#[inline(always)]
fn flip(f: usize) -> usize {
    let (kind, sq) = (f / 64, f % 64);
    let kind = if kind < 6 { kind + 6 } else { kind - 6 };
    kind * 64 + (sq ^ 56)
}

/// The float weights being trained.
#[derive(Clone)]
struct Params {
    w1: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: f32,
}

impl Params {
    fn zero() -> Params {
        Params { w1: vec![0.0; INPUTS * HIDDEN], b1: vec![0.0; HIDDEN], w2: vec![0.0; 2 * HIDDEN], b2: 0.0 }
    }
    fn random(seed: u64) -> Params {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut uniform = |limit: f32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * limit
        };
        let mut p = Params::zero();
        let l1 = 1.0 / (INPUTS as f32).sqrt();
        let l2 = 1.0 / ((2 * HIDDEN) as f32).sqrt();
        p.w1.iter_mut().for_each(|w| *w = uniform(l1));
        p.w2.iter_mut().for_each(|w| *w = uniform(l2));
        p
    }
    fn slices_mut(&mut self) -> [&mut [f32]; 3] {
        [&mut self.w1, &mut self.b1, &mut self.w2]
    }
}

/// The hidden layers of a position: White's view, Black's view.
fn hidden(p: &Params, white: &[usize], out: &mut [[f32; HIDDEN]; 2]) {
    for (side, acc) in out.iter_mut().enumerate() {
        acc.copy_from_slice(&p.b1);
        for &f in white {
            let f = if side == 0 { f } else { flip(f) };
            let column = &p.w1[f * HIDDEN..(f + 1) * HIDDEN];
            for (a, w) in acc.iter_mut().zip(column) {
                *a += w;
            }
        }
    }
}

/// The network's output (units of 400 cp) from the side to move.
fn output(p: &Params, acc: &[[f32; HIDDEN]; 2], black: bool) -> f32 {
    let (us, them) = if black { (&acc[1], &acc[0]) } else { (&acc[0], &acc[1]) };
    let mut out = p.b2;
    for h in 0..HIDDEN {
        let (u, t) = (us[h].clamp(0.0, 1.0), them[h].clamp(0.0, 1.0));
        out += u * u * p.w2[h] + t * t * p.w2[HIDDEN + h];
    }
    out
}

fn features_of(data: &Data, i: usize, buf: &mut Vec<usize>) {
    buf.clear();
    let (a, b) = (data.start[i] as usize, data.start[i + 1] as usize);
    buf.extend(data.pieces[a..b].iter().map(|&f| f as usize));
}

/// Add the loss gradient of positions `ids` to `g`; returns the summed loss.
fn gradient(p: &Params, data: &Data, ids: &[u32], g: &mut Params) -> f64 {
    let mut loss = 0.0f64;
    let mut acc = [[0.0f32; HIDDEN]; 2];
    let mut feats = Vec::with_capacity(32);
    let mut d = [[0.0f32; HIDDEN]; 2];
    for &i in ids {
        let i = i as usize;
        features_of(data, i, &mut feats);
        hidden(p, &feats, &mut acc);
        let black = data.black[i];
        let out = output(p, &acc, black);
        let pred = sigmoid(out);
        let err = pred - data.target[i];
        loss += (err * err) as f64;
        let grad = 2.0 * err * pred * (1.0 - pred);
        g.b2 += grad;
        // d[0] is White's view, d[1] Black's; the output's halves are
        // the side to move's, then the other's.
        for (side, dside) in d.iter_mut().enumerate() {
            let half = if (side == 1) == black { 0 } else { HIDDEN };
            for h in 0..HIDDEN {
                let a = acc[side][h];
                let active = a > 0.0 && a < 1.0;
                let c = a.clamp(0.0, 1.0);
                g.w2[half + h] += grad * c * c;
                dside[h] = if active { grad * p.w2[half + h] * 2.0 * a } else { 0.0 };
            }
        }
        for ((b, white), black) in g.b1.iter_mut().zip(&d[0]).zip(&d[1]) {
            *b += white + black;
        }
        for &f in &feats {
            for (side, dside) in d.iter().enumerate() {
                let f = if side == 0 { f } else { flip(f) };
                let column = &mut g.w1[f * HIDDEN..(f + 1) * HIDDEN];
                for (w, dv) in column.iter_mut().zip(dside) {
                    *w += dv;
                }
            }
        }
    }
    loss
}

fn validation_loss(p: &Params, data: &Data, ids: &[u32]) -> f64 {
    let mut acc = [[0.0f32; HIDDEN]; 2];
    let mut feats = Vec::with_capacity(32);
    let mut loss = 0.0;
    for &i in ids {
        features_of(data, i as usize, &mut feats);
        hidden(p, &feats, &mut acc);
        let err = sigmoid(output(p, &acc, data.black[i as usize])) - data.target[i as usize];
        loss += (err * err) as f64;
    }
    loss / ids.len().max(1) as f64
}

/// The loss of `eval::evaluate` (through the same sigmoid) on positions
/// `ids`: the figure the network must beat.
fn hand_written_loss(data: &Data, ids: &[u32]) -> f64 {
    let mut feats = Vec::with_capacity(32);
    let (mut loss, mut n) = (0.0, 0);
    for &i in ids {
        features_of(data, i as usize, &mut feats);
        let Some(board) = board_of(&feats, data.black[i as usize]) else { continue };
        let cp = tabula_cumisitha::ai::eval::evaluate(&board) as f32;
        let err = sigmoid(cp / SCALE as f32) - data.target[i as usize];
        loss += (err * err) as f64;
        n += 1;
    }
    loss / n.max(1) as f64
}

struct Adam {
    m: Params,
    v: Params,
    step: i32,
}

impl Adam {
    fn apply(&mut self, p: &mut Params, g: &Params, rate: f32, scale: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.step += 1;
        let c1 = 1.0 - B1.powi(self.step);
        let c2 = 1.0 - B2.powi(self.step);
        let update = |w: &mut f32, g: f32, m: &mut f32, v: &mut f32| {
            let g = g * scale;
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *w -= rate * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
        };
        let [pw1, pb1, pw2] = p.slices_mut();
        let [mw1, mb1, mw2] = self.m.slices_mut();
        let [vw1, vb1, vw2] = self.v.slices_mut();
        for (((w, g), m), v) in pw1.iter_mut().zip(&g.w1).zip(mw1.iter_mut()).zip(vw1.iter_mut()) {
            update(w, *g, m, v);
        }
        for (((w, g), m), v) in pb1.iter_mut().zip(&g.b1).zip(mb1.iter_mut()).zip(vb1.iter_mut()) {
            update(w, *g, m, v);
        }
        for (((w, g), m), v) in pw2.iter_mut().zip(&g.w2).zip(mw2.iter_mut()).zip(vw2.iter_mut()) {
            update(w, *g, m, v);
            // Keep the output weights where the quantised network can hold them.
            *w = w.clamp(-1.98, 1.98);
        }
        update(&mut p.b2, g.b2, &mut self.m.b2, &mut self.v.b2);
    }
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    let began = Instant::now();
    let data = match read(&args) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let n = data.target.len();
    if n < 100 {
        eprintln!("error: only {n} positions; the network needs many more");
        std::process::exit(1);
    }
    eprintln!("{n} positions read in {:.1} s", began.elapsed().as_secs_f64());
    let mut rng = args.seed.wrapping_mul(0xD134_2543_DE82_EF95) | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        order.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    let held = (n / 50).max(1);
    let (valid, train) = order.split_at_mut(held);
    let valid = valid.to_vec();
    let mut params = Params::random(args.seed);
    let mut adam = Adam { m: Params::zero(), v: Params::zero(), step: 0 };
    const BATCH: usize = 16_384;
    let mut grads: Vec<Params> = (0..args.threads).map(|_| Params::zero()).collect();
    eprintln!(
        "the hand-written evaluation's loss on the validation positions: {:.6}",
        hand_written_loss(&data, &valid)
    );
    eprintln!("epoch 0: validation loss {:.6}", validation_loss(&params, &data, &valid));
    for epoch in 1..=args.epochs {
        for i in (1..train.len()).rev() {
            train.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let rate = if epoch * 4 > args.epochs * 3 { args.rate / 10.0 } else { args.rate };
        let mut loss = 0.0;
        for batch in train.chunks(BATCH) {
            let chunk = batch.len().div_ceil(args.threads);
            let params_ref = &params;
            let data_ref = &data;
            loss += std::thread::scope(|s| {
                let handles: Vec<_> = grads
                    .iter_mut()
                    .zip(batch.chunks(chunk))
                    .map(|(g, ids)| {
                        s.spawn(move || {
                            *g = Params::zero();
                            gradient(params_ref, data_ref, ids, g)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().expect("a training thread panicked")).sum::<f64>()
            });
            let (first, rest) = grads.split_at_mut(1);
            for g in rest.iter().take(batch.len().div_ceil(chunk).saturating_sub(1)) {
                for (a, b) in first[0].w1.iter_mut().zip(&g.w1) {
                    *a += b;
                }
                for (a, b) in first[0].b1.iter_mut().zip(&g.b1) {
                    *a += b;
                }
                for (a, b) in first[0].w2.iter_mut().zip(&g.w2) {
                    *a += b;
                }
                first[0].b2 += g.b2;
            }
            adam.apply(&mut params, &first[0], rate, 1.0 / batch.len() as f32);
        }
        eprintln!(
            "epoch {epoch}/{}: training loss {:.6}, validation loss {:.6}, {:.0} s",
            args.epochs,
            loss / train.len() as f64,
            validation_loss(&params, &data, &valid),
            began.elapsed().as_secs_f64()
        );
    }
    let net = Network::quantise(&params.w1, &params.b1, &params.w2, params.b2);
    // How far the quantised network is from the float one, in centipawns.
    let mut acc = [[0.0f32; HIDDEN]; 2];
    let mut feats = Vec::with_capacity(32);
    let mut diff = 0.0f64;
    let check = &valid[..valid.len().min(2000)];
    for &i in check {
        let i = i as usize;
        features_of(&data, i, &mut feats);
        hidden(&params, &feats, &mut acc);
        let float_cp = output(&params, &acc, data.black[i]) * SCALE as f32;
        let Some(board) = board_of(&feats, data.black[i]) else { continue };
        let q = tabula_cumisitha::ai::nnue::Accumulator::from_board(&net, &board);
        diff += (net.evaluate(&q, board.side_to_move()) as f32 - float_cp).abs() as f64;
    }
    eprintln!("quantised against float: {:.1} cp mean absolute difference", diff / check.len() as f64);
    if let Some(dir) = args.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let bytes = net.to_bytes();
    if let Err(e) = std::fs::write(&args.out, &bytes) {
        eprintln!("error: cannot write {}: {e}", args.out.display());
        std::process::exit(1);
    }
    println!("wrote {} ({} bytes) in {:.0} s", args.out.display(), bytes.len(), began.elapsed().as_secs_f64());
}

/// A board with these pieces (White-view features) for checking the
/// quantised network; castling and en passant do not matter to it.
fn board_of(white: &[usize], black_to_move: bool) -> Option<cozy_chess::Board> {
    let mut b = cozy_chess::BoardBuilder::empty();
    for &f in white {
        let (kind, sq) = (f / 64, f % 64);
        let color = if kind < 6 { Color::White } else { Color::Black };
        *b.square_mut(Square::index(sq)) = Some((Piece::index(kind % 6), color));
    }
    b.side_to_move = if black_to_move { Color::Black } else { Color::White };
    b.build().ok()
}
