//! Tune the evaluation's weights by Texel's method: find the weights whose
//! evaluation, through a logistic curve, best predicts the results of the
//! games the positions came from (least squares, Adam on the full batch).
//! Every feature is linear in its weight, so each position is traced once
//! (`eval::trace`) and the tuning runs on the feature counts alone.
//!
//! Input: lines `FEN | RESULT | SCORE` as `texel_datagen` writes them.
//! Output: a new `params.rs` (the Rust source of the weights).
//!
//! ```text
//! cargo run --release -p tabula-cumisitha --example texel_tune -- \
//!     --data target/texel/games.txt --epochs 400 --out crates/cumisitha/src/ai/params.rs
//! ```

use std::io::{BufRead, Write};
use std::time::Instant;
use tabula_cumisitha::ai::eval::{trace, GROUPS, NUM_WEIGHTS, PHASE_MAX};
use tabula_cumisitha::ai::params::WEIGHTS;
mod common;
use common::{at_least_one, unit_interval};

/// Tune the hand-written evaluation's weights on `texel_datagen` positions.
#[derive(clap::Parser)]
struct Args {
    /// Positions to tune on (`FEN | RESULT | SCORE` lines); repeat for several files.
    #[arg(long, required = true)]
    data: Vec<std::path::PathBuf>,
    /// Full-batch Adam steps.
    #[arg(long, default_value_t = 400)]
    epochs: usize,
    /// Adam's learning rate, in centipawns.
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// Weight of the search score against the game result in the target (1: the score alone).
    #[arg(long, default_value_t = 1.0, value_parser = unit_interval::<f64>)]
    lambda: f64,
    /// Pull of each weight towards its starting value (L2, per 100 cp squared).
    #[arg(long, default_value_t = 0.0)]
    prior: f64,
    /// Threads computing the error and its gradient.
    #[arg(long, default_value_t = 2, value_parser = at_least_one::<usize>)]
    threads: usize,
    /// Where to write the tuned `params.rs` (printed to stdout if not given).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Read at most this many positions (all of them if not given).
    #[arg(long)]
    limit: Option<usize>,
}

/// The traced positions, flat.
#[derive(Default)]
struct Data {
    /// Features of position i: `start[i]..start[i+1]` in `index`/`count`.
    start: Vec<u32>,
    index: Vec<u16>,
    count: Vec<i8>,
    /// Middlegame share (phase / 24) and the scale (out of 1).
    mg_share: Vec<f32>,
    scale: Vec<f32>,
    mop_up: Vec<f32>,
    result: Vec<f32>,
    score: Vec<f32>,
}

impl Data {
    fn len(&self) -> usize {
        self.result.len()
    }
}

fn load(args: &Args) -> Result<Data, String> {
    let mut d = Data { start: vec![0], ..Data::default() };
    let mut skipped = 0usize;
    'files: for path in &args.data {
        let file = std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
            let mut parts = line.split('|').map(str::trim);
            let (Some(fen), Some(result), score) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!("{}:{}: expected 'FEN | RESULT | SCORE'", path.display(), n + 1));
            };
            let result: f32 =
                result.parse().map_err(|_| format!("{}:{}: bad result '{result}'", path.display(), n + 1))?;
            let score: f32 = score.and_then(|s| s.parse().ok()).unwrap_or(0.0);
            let board = match tabula_cumisitha::notation::fen::parse(fen) {
                Ok(b) => b,
                Err(_) => {
                    skipped += 1;
                    continue;
                }
            };
            let t = trace(&board);
            for (i, &c) in t.features.counts.iter().enumerate() {
                if c != 0 {
                    d.index.push(i as u16);
                    d.count.push(c.clamp(-127, 127) as i8);
                }
            }
            d.start.push(d.index.len() as u32);
            d.mg_share.push(t.phase as f32 / PHASE_MAX as f32);
            d.scale.push(t.scale as f32 / 8.0);
            d.mop_up.push(t.mop_up as f32);
            d.result.push(result);
            d.score.push(score);
            if args.limit.is_some_and(|limit| d.len() >= limit) {
                break 'files;
            }
            if d.len().is_multiple_of(500_000) {
                eprintln!("  {} positions read", d.len());
            }
        }
    }
    if skipped > 0 {
        eprintln!("skipped {skipped} unreadable positions");
    }
    Ok(d)
}

/// The model's White evaluation of position `i` with weights `w`
/// (mg at 2k, eg at 2k+1).
#[inline]
fn eval(d: &Data, w: &[f64], i: usize) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for j in d.start[i] as usize..d.start[i + 1] as usize {
        let k = d.index[j] as usize;
        let c = d.count[j] as f64;
        mg += w[2 * k] * c;
        eg += w[2 * k + 1] * c;
    }
    let m = d.mg_share[i] as f64;
    (mg * m + (eg + d.mop_up[i] as f64) * (1.0 - m)) * d.scale[i] as f64
}

fn sigmoid(k: f64, x: f64) -> f64 {
    1.0 / (1.0 + (-k * x / 400.0 * std::f64::consts::LN_10).exp())
}

fn target(d: &Data, k: f64, lambda: f64, i: usize) -> f64 {
    lambda * d.result[i] as f64 + (1.0 - lambda) * sigmoid(k, d.score[i] as f64)
}

/// Mean squared error over `range`, split over threads.
fn error(d: &Data, w: &[f64], k: f64, lambda: f64, range: std::ops::Range<usize>, threads: usize) -> f64 {
    let n = range.len().max(1);
    let chunk = range.len().div_ceil(threads.max(1)).max(1);
    let sum: f64 = std::thread::scope(|s| {
        let hs: Vec<_> = (range.start..range.end)
            .step_by(chunk)
            .map(|a| {
                let b = (a + chunk).min(range.end);
                s.spawn(move || {
                    (a..b).map(|i| (sigmoid(k, eval(d, w, i)) - target(d, k, lambda, i)).powi(2)).sum::<f64>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).sum()
    });
    sum / n as f64
}

/// The gradient of the error over `range`.
fn gradient(d: &Data, w: &[f64], k: f64, lambda: f64, range: std::ops::Range<usize>, threads: usize) -> Vec<f64> {
    let chunk = range.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Vec<f64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (range.start..range.end)
            .step_by(chunk)
            .map(|a| {
                let b = (a + chunk).min(range.end);
                s.spawn(move || {
                    let mut g = vec![0.0; w.len()];
                    for i in a..b {
                        let p = sigmoid(k, eval(d, w, i));
                        let y = target(d, k, lambda, i);
                        // d(error)/d(eval), the constants folded into the rate.
                        let e = (p - y) * p * (1.0 - p) * d.scale[i] as f64;
                        let m = d.mg_share[i] as f64;
                        for j in d.start[i] as usize..d.start[i + 1] as usize {
                            let kk = d.index[j] as usize;
                            let c = d.count[j] as f64 * e;
                            g[2 * kk] += c * m;
                            g[2 * kk + 1] += c * (1.0 - m);
                        }
                    }
                    g
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut g = vec![0.0; w.len()];
    for part in parts {
        for (a, b) in g.iter_mut().zip(part) {
            *a += b;
        }
    }
    let n = range.len().max(1) as f64;
    g.iter_mut().for_each(|x| *x /= n);
    g
}

fn write_params(w: &[f64], out: &mut dyn Write, note: &str) -> std::io::Result<()> {
    writeln!(out, "//! The evaluation's weights, (middlegame, endgame) in centipawns, in the")?;
    writeln!(out, "//! layout of `eval::GROUPS`. Written by `scripts/cumisitha-texel.sh`")?;
    writeln!(out, "//! (examples/texel_tune.rs).")?;
    writeln!(out, "//!")?;
    for line in note.split("; ") {
        writeln!(out, "//! {line}")?;
    }
    writeln!(out)?;
    writeln!(out, "/// Every weight, as `eval` lays them out.")?;
    writeln!(out, "#[rustfmt::skip]")?;
    writeln!(out, "pub const WEIGHTS: [(i16, i16); {NUM_WEIGHTS}] = [")?;
    for &(name, first, len) in GROUPS {
        writeln!(out, "    // {name}")?;
        for row in (first..first + len).collect::<Vec<_>>().chunks(8) {
            let cells: Vec<String> = row
                .iter()
                .map(|&i| format!("({}, {}),", w[2 * i].round() as i32, w[2 * i + 1].round() as i32))
                .collect();
            writeln!(out, "    {}", cells.join(" "))?;
        }
    }
    writeln!(out, "];")
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    let began = Instant::now();
    let data = match load(&args) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let n = data.len();
    if n < 1000 {
        eprintln!("error: only {n} positions; tuning needs many more");
        std::process::exit(1);
    }
    eprintln!("{n} positions traced in {:.0} s", began.elapsed().as_secs_f64());
    // The file is written game by game: its last tenth is held out as whole
    // games the training never sees.
    let train = 0..n - n / 10;
    let valid = n - n / 10..n;
    let mut w: Vec<f64> = WEIGHTS.iter().flat_map(|&(a, b)| [a as f64, b as f64]).collect();
    let w0 = w.clone();
    // The scaling constant K that fits the starting weights best.
    let mut k = 1.0f64;
    let mut best = error(&data, &w, k, args.lambda, train.clone(), args.threads);
    let mut step = 0.5;
    while step > 0.001 {
        let mut improved = false;
        for cand in [k - step, k + step] {
            if cand <= 0.0 {
                continue;
            }
            let e = error(&data, &w, cand, args.lambda, train.clone(), args.threads);
            if e < best {
                best = e;
                k = cand;
                improved = true;
            }
        }
        if !improved {
            step /= 2.0;
        }
    }
    let start_valid = error(&data, &w, k, args.lambda, valid.clone(), args.threads);
    eprintln!("K = {k:.3}; error: training {best:.6}, held out {start_valid:.6}");
    // Adam.
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    let mut best_valid = (start_valid, w.clone(), 0);
    for epoch in 1..=args.epochs {
        let mut g = gradient(&data, &w, k, args.lambda, train.clone(), args.threads);
        // The prior: a weight strays from its start only as far as the data asks.
        for i in 0..w.len() {
            g[i] += args.prior * (w[i] - w0[i]) / 10_000.0;
        }
        for i in 0..w.len() {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(epoch as i32));
            let vh = v[i] / (1.0 - b2.powi(epoch as i32));
            w[i] -= args.rate * mh / (vh.sqrt() + eps);
        }
        if epoch % 25 == 0 || epoch == args.epochs {
            let et = error(&data, &w, k, args.lambda, train.clone(), args.threads);
            let ev = error(&data, &w, k, args.lambda, valid.clone(), args.threads);
            eprintln!("epoch {epoch:>5}: training {et:.6}, held out {ev:.6} ({:.0} s)", began.elapsed().as_secs_f64());
            if ev < best_valid.0 {
                best_valid = (ev, w.clone(), epoch);
            }
        }
    }
    let (ev, w, epoch) = best_valid;
    eprintln!("best held-out error {ev:.6} (from {start_valid:.6}) at epoch {epoch}");
    let note = format!(
        "{n} positions; K = {k:.3}, lambda = {}, prior = {}; {epoch} epochs of Adam at rate {}; \
         held-out error {start_valid:.6} -> {ev:.6}",
        args.lambda, args.prior, args.rate
    );
    let result = match &args.out {
        Some(path) => std::fs::File::create(path).and_then(|mut f| write_params(&w, &mut f, &note)),
        None => write_params(&w, &mut std::io::stdout().lock(), &note),
    };
    if let Err(e) = result {
        eprintln!("error: writing the weights: {e}");
        std::process::exit(1);
    }
}
