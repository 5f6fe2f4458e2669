//! Ratings from all games at once by maximum likelihood, with error bars.
//!
//! The model is BayesElo's (Rémi Coulom): with `d = r_first - r_second +
//! adv` (Elo points, `adv` the advantage of moving first) and a draw
//! parameter `draw >= 0`,
//!
//! ```text
//! P(first wins)  = 1 / (1 + 10^((draw - d) / 400))
//! P(second wins) = 1 / (1 + 10^((draw + d) / 400))
//! P(draw)        = 1 - P(first wins) - P(second wins)
//! ```
//!
//! All ratings, `adv` and `draw` are fitted together by Newton's method
//! on the log-likelihood of every game, so a player's rating uses every
//! opponent's games too (not pairwise Elo). Like BayesElo, a prior of a
//! few virtual draws between every two players who met keeps the fit
//! finite when someone wins or loses everything; with `prior = 0` the fit
//! is the plain maximum-likelihood estimate. Ratings are centred on 0.
//! Error bars are standard errors from the inverse of the observed
//! information (the curvature of the log-likelihood) at the optimum.

/// A game's outcome for the fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The first player won.
    FirstWins,
    /// A draw.
    Draw,
    /// The second player won.
    SecondWins,
}

/// One game between players numbered from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatedGame {
    /// The player who moved first.
    pub first: usize,
    /// The player who moved second.
    pub second: usize,
    /// The outcome.
    pub outcome: Outcome,
}

/// The fitted ratings.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingFit {
    /// Each player's rating, Elo points, averaging 0.
    pub ratings: Vec<f64>,
    /// Each rating's standard error (Elo points); `1.96 *` it is a 95 %
    /// interval.
    pub errors: Vec<f64>,
    /// The fitted advantage of moving first (Elo points).
    pub first_move: f64,
    /// The fitted draw parameter (Elo points).
    pub draw: f64,
}

/// Why ratings could not be fitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// A game names a player outside `0..players`.
    #[error("game {0} names a player outside the list")]
    BadPlayer(usize),
    /// The players fall into groups that never played each other: their
    /// ratings cannot be compared.
    #[error("the players fall into groups that never met; ratings across them cannot be compared")]
    Disconnected,
    /// No finite maximum: without a prior, some player or group won (or
    /// lost) every game against the rest; or the fit did not converge.
    #[error("no finite rating fit: a player or group won or lost every game against the others (a prior of virtual draws fixes this)")]
    NoConvergence,
}

const S: f64 = std::f64::consts::LN_10 / 400.0;

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// A game with a weight (virtual draws have fractional weights).
struct Weighted {
    first: usize,
    second: usize,
    outcome: Outcome,
    weight: f64,
}

/// Parameters: ratings of players 0..n-1 (the last fixed at 0), adv, and
/// w = ln(draw).
struct Model<'a> {
    n: usize,
    games: &'a [Weighted],
}

impl Model<'_> {
    fn unpack(&self, theta: &[f64]) -> (Vec<f64>, f64, f64) {
        let mut r = theta[..self.n - 1].to_vec();
        r.push(0.0);
        (r, theta[self.n - 1], theta[self.n].exp())
    }

    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let (r, adv, draw) = self.unpack(theta);
        self.games
            .iter()
            .map(|g| {
                let x = S * (r[g.first] - r[g.second] + adv);
                let u = S * draw;
                let (a, b) = (sigmoid(x - u), sigmoid(-x - u));
                let p = match g.outcome {
                    Outcome::FirstWins => a,
                    Outcome::SecondWins => b,
                    Outcome::Draw => (1.0 - a - b).max(1e-300),
                };
                g.weight * p.max(1e-300).ln()
            })
            .sum()
    }

    fn gradient(&self, theta: &[f64]) -> Vec<f64> {
        let (r, adv, draw) = self.unpack(theta);
        let mut grad = vec![0.0; self.n + 1];
        let mut g_r = vec![0.0; self.n];
        for g in self.games {
            let x = S * (r[g.first] - r[g.second] + adv);
            let u = S * draw;
            // Derivatives of log P by x and by u.
            let (dx, du) = match g.outcome {
                Outcome::FirstWins => (sigmoid(u - x), -sigmoid(u - x)),
                Outcome::SecondWins => (-sigmoid(x + u), -sigmoid(x + u)),
                Outcome::Draw => {
                    let (a, b) = (sigmoid(x - u), sigmoid(-x - u));
                    let pd = (1.0 - a - b).max(1e-300);
                    let (da, db) = (a * (1.0 - a), b * (1.0 - b));
                    (-(da - db) / pd, (da + db) / pd)
                }
            };
            let w = g.weight * S;
            g_r[g.first] += w * dx;
            g_r[g.second] -= w * dx;
            grad[self.n - 1] += w * dx;
            // d/dw of u = S * exp(w) is u.
            grad[self.n] += g.weight * du * u;
        }
        grad[..self.n - 1].copy_from_slice(&g_r[..self.n - 1]);
        grad
    }

    /// The Hessian by central differences of the analytic gradient.
    #[allow(clippy::needless_range_loop)]
    fn hessian(&self, theta: &[f64]) -> Vec<Vec<f64>> {
        let m = theta.len();
        let mut h = vec![vec![0.0; m]; m];
        for j in 0..m {
            let step = 1e-4 * theta[j].abs().max(1.0);
            let mut plus = theta.to_vec();
            let mut minus = theta.to_vec();
            plus[j] += step;
            minus[j] -= step;
            let (gp, gm) = (self.gradient(&plus), self.gradient(&minus));
            for i in 0..m {
                h[i][j] = (gp[i] - gm[i]) / (2.0 * step);
            }
        }
        // Symmetrise away rounding.
        for i in 0..m {
            for j in 0..i {
                let v = (h[i][j] + h[j][i]) / 2.0;
                h[i][j] = v;
                h[j][i] = v;
            }
        }
        h
    }
}

/// Solve `a x = b` by Gaussian elimination with partial pivoting.
#[allow(clippy::needless_range_loop)]
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-14 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = a[row][col] / a[col][col];
            for k in col..n {
                a[row][k] -= f * a[col][k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut cols = Vec::with_capacity(n);
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        cols.push(solve(a.to_vec(), e)?);
    }
    Some((0..n).map(|i| (0..n).map(|j| cols[j][i]).collect()).collect())
}

/// BayesElo's prior: two virtual draws between every two players who met.
pub const BAYESELO_PRIOR: f64 = 2.0;

/// The plain maximum-likelihood fit where it exists; where some player or
/// group won or lost every game, the fit with [`BAYESELO_PRIOR`]. Returns
/// the fit and the prior it used.
///
/// ```
/// use tabula_tournament::rating::{fit_plain_or_prior, Outcome, RatedGame, BAYESELO_PRIOR};
/// let game = |first, second, outcome| RatedGame { first, second, outcome };
/// // Players 0 and 1 won a game each, with each colour, and drew one.
/// let mut games = vec![
///     game(0, 1, Outcome::FirstWins),
///     game(1, 0, Outcome::SecondWins),
///     game(1, 0, Outcome::FirstWins),
///     game(0, 1, Outcome::SecondWins),
///     game(0, 1, Outcome::Draw),
/// ];
/// let (f, prior) = fit_plain_or_prior(2, &games);
/// assert_eq!(prior, 0.0);
/// assert!(f.is_ok());
/// // Player 2 beat player 0 with each colour and never lost: no finite
/// // plain fit, so the prior decides.
/// games.extend([game(2, 0, Outcome::FirstWins), game(0, 2, Outcome::SecondWins)]);
/// let (f, prior) = fit_plain_or_prior(3, &games);
/// assert_eq!(prior, BAYESELO_PRIOR);
/// let r = f.unwrap().ratings;
/// assert!(r[2] > r[0]);
/// ```
pub fn fit_plain_or_prior(players: usize, games: &[RatedGame]) -> (Result<RatingFit, FitError>, f64) {
    match fit(players, games, 0.0) {
        Err(FitError::NoConvergence) => (fit(players, games, BAYESELO_PRIOR), BAYESELO_PRIOR),
        other => (other, 0.0),
    }
}

/// Fit ratings for `players` players from `games`, with `prior` virtual
/// draws between every two players who met (BayesElo uses 2; 0 gives the
/// plain maximum-likelihood estimate).
///
/// ```
/// use tabula_tournament::rating::{fit, Outcome, RatedGame};
/// // A beats B in two of three games with each colour.
/// let mut games = Vec::new();
/// for (first, second) in [(0, 1), (1, 0)] {
///     for k in 0..3 {
///         let a_wins = k < 2;
///         let outcome = if a_wins == (first == 0) { Outcome::FirstWins } else { Outcome::SecondWins };
///         games.push(RatedGame { first, second, outcome });
///     }
/// }
/// let f = fit(2, &games, 0.0).unwrap();
/// // P(A wins) = 2/3 gives A 400·log10(2) ≈ 120 Elo over B.
/// assert!((f.ratings[0] - f.ratings[1] - 120.41).abs() < 0.1);
/// ```
pub fn fit(players: usize, games: &[RatedGame], prior: f64) -> Result<RatingFit, FitError> {
    for (k, g) in games.iter().enumerate() {
        if g.first >= players || g.second >= players || g.first == g.second {
            return Err(FitError::BadPlayer(k));
        }
    }
    if players < 2 {
        return Ok(RatingFit { ratings: vec![0.0; players], errors: vec![0.0; players], first_move: 0.0, draw: 0.0 });
    }
    // Connectivity: everyone must be linked by games.
    let mut comp: Vec<usize> = (0..players).collect();
    fn root(c: &mut [usize], mut x: usize) -> usize {
        while c[x] != x {
            c[x] = c[c[x]];
            x = c[x];
        }
        x
    }
    for g in games {
        let (a, b) = (root(&mut comp, g.first), root(&mut comp, g.second));
        comp[a] = b;
    }
    let r0 = root(&mut comp, 0);
    if (0..players).any(|p| root(&mut comp, p) != r0) {
        return Err(FitError::Disconnected);
    }
    // Without a prior the maximum exists only if every player took points
    // from someone who took points from them, round the whole field: the
    // "scored against" graph must be strongly connected (Zermelo, Ford).
    if prior <= 0.0 {
        let mut scored = vec![vec![false; players]; players];
        for g in games {
            match g.outcome {
                Outcome::FirstWins => scored[g.first][g.second] = true,
                Outcome::SecondWins => scored[g.second][g.first] = true,
                Outcome::Draw => {
                    scored[g.first][g.second] = true;
                    scored[g.second][g.first] = true;
                }
            }
        }
        let reach = |forward: bool| {
            let mut seen = vec![false; players];
            let mut stack = vec![0];
            seen[0] = true;
            while let Some(x) = stack.pop() {
                for y in 0..players {
                    let edge = if forward { scored[x][y] } else { scored[y][x] };
                    if edge && !seen[y] {
                        seen[y] = true;
                        stack.push(y);
                    }
                }
            }
            seen.iter().all(|&s| s)
        };
        if !reach(true) || !reach(false) {
            return Err(FitError::NoConvergence);
        }
    }
    let mut weighted: Vec<Weighted> =
        games.iter().map(|g| Weighted { first: g.first, second: g.second, outcome: g.outcome, weight: 1.0 }).collect();
    if prior > 0.0 {
        let mut met = std::collections::BTreeSet::new();
        for g in games {
            met.insert((g.first.min(g.second), g.first.max(g.second)));
        }
        for (a, b) in met {
            for (first, second) in [(a, b), (b, a)] {
                weighted.push(Weighted { first, second, outcome: Outcome::Draw, weight: prior / 2.0 });
            }
        }
    }
    let model = Model { n: players, games: &weighted };
    // Start: everyone equal, no first-move advantage, draw = 100 Elo.
    let mut theta = vec![0.0; players + 1];
    theta[players] = 100f64.ln();
    let mut ll = model.log_likelihood(&theta);
    let mut converged = false;
    for _ in 0..200 {
        let grad = model.gradient(&theta);
        let norm: f64 = grad.iter().map(|g| g * g).sum::<f64>().sqrt();
        if norm < 1e-9 {
            converged = true;
            break;
        }
        let h = model.hessian(&theta);
        // Newton step on the concave log-likelihood: solve (-H) step = grad;
        // fall back to a gradient step where -H is not positive.
        let neg: Vec<Vec<f64>> = h.iter().map(|row| row.iter().map(|v| -v).collect()).collect();
        let mut step = solve(neg, grad.clone())
            .filter(|s| s.iter().zip(&grad).map(|(a, b)| a * b).sum::<f64>() > 0.0)
            .unwrap_or_else(|| grad.iter().map(|g| g * 100.0).collect());
        let mut improved = false;
        for _ in 0..60 {
            let mut next: Vec<f64> = theta.iter().zip(&step).map(|(t, s)| t + s).collect();
            // Keep the draw parameter in a sane range (ln of Elo points).
            next[players] = next[players].clamp(-30.0, 10.0);
            let l = model.log_likelihood(&next);
            if l >= ll - 1e-12 {
                let gain = l - ll;
                theta = next;
                ll = l;
                improved = true;
                if gain.abs() < 1e-13 {
                    converged = true;
                }
                break;
            }
            step.iter_mut().for_each(|s| *s /= 2.0);
        }
        if !improved || converged {
            converged = true;
            break;
        }
    }
    let (r, adv, draw) = model.unpack(&theta);
    if !converged || r.iter().any(|x| !x.is_finite() || x.abs() > 5000.0) {
        return Err(FitError::NoConvergence);
    }
    // Covariance of the free parameters; the ratings' block, with the last
    // (fixed) player at zero variance, then centred.
    let h = model.hessian(&theta);
    let info: Vec<Vec<f64>> = h.iter().map(|row| row.iter().map(|v| -v).collect()).collect();
    let cov = invert(&info).ok_or(FitError::NoConvergence)?;
    let n = players;
    let mut c = vec![vec![0.0; n]; n];
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            c[i][j] = cov[i][j];
        }
    }
    let mean = r.iter().sum::<f64>() / n as f64;
    // Var(r_k - mean) = e_k' P C P e_k with P = I - 11'/n.
    let row_mean: Vec<f64> = (0..n).map(|i| c[i].iter().sum::<f64>() / n as f64).collect();
    let all_mean = row_mean.iter().sum::<f64>() / n as f64;
    let errors = (0..n).map(|k| (c[k][k] - 2.0 * row_mean[k] + all_mean).max(0.0).sqrt()).collect();
    Ok(RatingFit {
        ratings: r.iter().map(|x| x - mean).collect(),
        errors,
        first_move: adv,
        draw: if draw < 1e-6 { 0.0 } else { draw },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(list: &[(usize, usize, Outcome, usize)]) -> Vec<RatedGame> {
        list.iter()
            .flat_map(|&(first, second, outcome, k)| std::iter::repeat_n(RatedGame { first, second, outcome }, k))
            .collect()
    }

    #[test]
    fn symmetric_results_give_equal_ratings() {
        use Outcome::*;
        // Two players, each colour: 5 wins, 5 draws, 5 losses.
        let g = games(&[
            (0, 1, FirstWins, 5),
            (0, 1, Draw, 5),
            (0, 1, SecondWins, 5),
            (1, 0, FirstWins, 5),
            (1, 0, Draw, 5),
            (1, 0, SecondWins, 5),
        ]);
        let f = fit(2, &g, 0.0).unwrap();
        assert!(f.ratings[0].abs() < 1e-6 && f.ratings[1].abs() < 1e-6);
        assert!(f.first_move.abs() < 1e-6);
        // A third of the games drawn at equal strength: draw = 400·log10 2.
        assert!((f.draw - 400.0 * 2f64.log10()).abs() < 1e-4, "draw {}", f.draw);
        // Symmetric error bars.
        assert!((f.errors[0] - f.errors[1]).abs() < 1e-9 && f.errors[0] > 0.0);
    }

    #[test]
    fn first_move_advantage_is_fitted() {
        use Outcome::*;
        // Equal players; the first player wins 3 of 4 games either way.
        let g = games(&[(0, 1, FirstWins, 30), (0, 1, SecondWins, 10), (1, 0, FirstWins, 30), (1, 0, SecondWins, 10)]);
        let f = fit(2, &g, 0.0).unwrap();
        assert!(f.ratings[0].abs() < 1e-6);
        // P = 3/4 with no draws: adv = 400·log10 3.
        assert!((f.first_move - 400.0 * 3f64.log10()).abs() < 0.01, "adv {}", f.first_move);
    }

    /// Three players without draws, colours balanced pair by pair: the
    /// model reduces to Bradley-Terry, whose maximum-likelihood strengths
    /// Zermelo's iteration (an independent algorithm) computes:
    /// pi_i <- W_i / sum_j n_ij / (pi_i + pi_j); the ratings are then
    /// 400·log10(pi_i) up to a constant.
    #[test]
    fn agrees_with_zermelo_bradley_terry() {
        use Outcome::*;
        // Pair (0,1): 0 wins 6 of 8; (0,2): 0 wins 5 of 8; (1,2): 1 wins 3 of 8.
        // Each pair's games are split evenly by colour.
        let mut list = Vec::new();
        for &(a, b, a_wins, total) in &[(0usize, 1usize, 6usize, 8usize), (0, 2, 5, 8), (1, 2, 3, 8)] {
            let half_w = a_wins / 2;
            let half_l = (total - a_wins) / 2;
            list.push((a, b, FirstWins, half_w));
            list.push((a, b, SecondWins, half_l));
            list.push((b, a, SecondWins, a_wins - half_w));
            list.push((b, a, FirstWins, total - a_wins - half_l));
        }
        let g = games(&list);
        let f = fit(3, &g, 0.0).unwrap();
        let wins = [6.0 + 5.0, 2.0 + 3.0, 3.0 + 5.0];
        let n = [[0.0, 8.0, 8.0], [8.0, 0.0, 8.0], [8.0, 8.0, 0.0]];
        let mut pi = [1.0f64; 3];
        for _ in 0..10_000 {
            let next: Vec<f64> = (0..3)
                .map(|i| wins[i] / (0..3).filter(|&j| j != i).map(|j| n[i][j] / (pi[i] + pi[j])).sum::<f64>())
                .collect();
            let norm: f64 = next.iter().product::<f64>().cbrt();
            pi = [next[0] / norm, next[1] / norm, next[2] / norm];
        }
        let bt: Vec<f64> = pi.iter().map(|p| 400.0 * p.log10()).collect();
        let mean = bt.iter().sum::<f64>() / 3.0;
        for (k, b) in bt.iter().enumerate() {
            assert!((f.ratings[k] - (b - mean)).abs() < 0.05, "player {k}: {} vs {}", f.ratings[k], b - mean);
        }
        assert!(f.first_move.abs() < 0.01);
    }

    #[test]
    fn a_perfect_score_needs_the_prior() {
        use Outcome::*;
        let g = games(&[(0, 1, FirstWins, 4), (1, 0, SecondWins, 4), (1, 2, FirstWins, 2), (2, 1, FirstWins, 2)]);
        assert_eq!(fit(3, &g, 0.0), Err(FitError::NoConvergence));
        let f = fit(3, &g, 2.0).unwrap();
        assert!(f.ratings[0] > f.ratings[1] && f.ratings[1] > f.ratings[2] - 1e-9);
        assert!(f.errors.iter().all(|e| e.is_finite() && *e > 0.0));
        assert_eq!(fit(3, &games(&[(0, 1, Draw, 2)]), 2.0), Err(FitError::Disconnected));
        assert_eq!(fit(2, &games(&[(0, 2, Draw, 1)]), 2.0), Err(FitError::BadPlayer(0)));
    }
}
