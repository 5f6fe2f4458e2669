//! Match statistics: scores with 95% intervals, Elo differences and the
//! sequential probability ratio test (SPRT) used to accept or reject an
//! engine change. The match reports (`tabula match`, `tabula uci-match`,
//! the Dots match against oppai-rs) take their score intervals from here
//! and print Elo differences alike, with [`format_elo`].
//!
//! ```
//! use tabula_ratings::match_stats::{format_elo, trinomial_interval};
//!
//! // 30 wins, 10 draws and 10 losses: a score of 70%, about +147 Elo.
//! let score = trinomial_interval(30, 10, 10);
//! assert!((score.value - 0.7).abs() < 1e-9 && score.low < 0.7 && score.high > 0.7);
//! assert_eq!(format_elo(score.value), "+147");
//! assert_eq!(format_elo(1.0), "+inf");
//! ```
//!
//! The SPRT uses the generalised (normal approximation) log-likelihood
//! ratio that fishtest, cutechess and fastchess use: with `n` observations
//! of mean `m` and variance `v`, and `s0`, `s1` the expected scores at
//! `elo0` and `elo1` (logistic Elo),
//! `LLR = n (s1 - s0) (2m - s0 - s1) / (2v)`. Observations are game pairs
//! (the same opening with each colour), scored 0, ¼, ½, ¾ or 1: the
//! pentanomial model, which accounts for the correlation inside a pair.

/// A value with a 95% confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The estimate.
    pub value: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

/// The Elo difference that gives an expected score `s` (logistic model),
/// kept finite (±1200) at a score of 0 or 1.
pub fn elo(s: f64) -> f64 {
    let s = s.clamp(0.001, 0.999);
    // Adding 0 turns -0 (at a score of exactly 0.5) into 0 for printing.
    -400.0 * (1.0 / s - 1.0).log10() + 0.0
}

/// The Elo difference of a score as text with its sign (`+147`, `-35`),
/// `+inf` or `-inf` at a score of 1 or 0, where no finite difference fits.
pub fn format_elo(s: f64) -> String {
    if s >= 1.0 {
        "+inf".into()
    } else if s <= 0.0 {
        "-inf".into()
    } else {
        format!("{:+.0}", elo(s))
    }
}

/// The expected score at an Elo difference.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean and variance of observations `values` seen `counts` times.
fn mean_var(values: &[f64], counts: &[u32]) -> Option<(f64, f64, f64)> {
    let n: f64 = counts.iter().map(|&c| c as f64).sum();
    if n == 0.0 {
        return None;
    }
    let mean = values.iter().zip(counts).map(|(v, &c)| v * c as f64).sum::<f64>() / n;
    let var = values.iter().zip(counts).map(|(v, &c)| (v - mean).powi(2) * c as f64).sum::<f64>() / n;
    Some((n, mean, var))
}

fn interval(values: &[f64], counts: &[u32]) -> Interval {
    match mean_var(values, counts) {
        None => Interval { value: 0.5, low: 0.0, high: 1.0 },
        Some((n, mean, var)) => {
            let half = 1.959_964 * (var / n).sqrt();
            Interval { value: mean, low: (mean - half).max(0.0), high: (mean + half).min(1.0) }
        }
    }
}

/// A score (0 to 1) with its 95% interval, from wins, draws and losses.
pub fn trinomial_interval(wins: usize, draws: usize, losses: usize) -> Interval {
    interval(&[1.0, 0.5, 0.0], &[wins as u32, draws as u32, losses as u32])
}

/// A score (0 to 1) with its 95% interval, from game pairs by their points
/// (0, ½, 1, 1½, 2).
pub fn pentanomial_interval(pairs: &[u32; 5]) -> Interval {
    interval(&PAIR_SCORES, pairs)
}

const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// A sequential probability ratio test of H0: Elo = `elo0` against
/// H1: Elo = `elo1`, with false-positive rate `alpha` and false-negative
/// rate `beta`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    /// The Elo difference of the null hypothesis (no gain).
    pub elo0: f64,
    /// The Elo difference of the alternative hypothesis (a gain).
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Where a running SPRT stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtState {
    /// The log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// Accept H0 at or below this.
    pub lower: f64,
    /// Accept H1 at or above this.
    pub upper: f64,
}

impl SprtState {
    /// `Some(true)` when H1 (the change gains `elo1`) is accepted,
    /// `Some(false)` when H0 is, `None` while undecided.
    pub fn decided(&self) -> Option<bool> {
        if self.llr >= self.upper {
            Some(true)
        } else if self.llr <= self.lower {
            Some(false)
        } else {
            None
        }
    }

    /// `"H1 accepted"`, `"H0 accepted"` or `"undecided"`.
    pub fn verdict(&self) -> &'static str {
        match self.decided() {
            Some(true) => "H1 accepted",
            Some(false) => "H0 accepted",
            None => "undecided",
        }
    }
}

impl Sprt {
    /// Read `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if !(parts.len() == 2 || parts.len() == 4) {
            return Err(format!("SPRT '{text}': expected elo0,elo1 or elo0,elo1,alpha,beta"));
        }
        let num = |i: usize, what: &str| -> Result<f64, String> {
            parts[i].parse::<f64>().map_err(|_| format!("SPRT '{text}': {what} '{}' is not a number", parts[i]))
        };
        let (elo0, elo1) = (num(0, "elo0")?, num(1, "elo1")?);
        let (alpha, beta) = if parts.len() == 4 { (num(2, "alpha")?, num(3, "beta")?) } else { (0.05, 0.05) };
        if !elo0.is_finite() || !elo1.is_finite() || elo1 <= elo0 {
            return Err(format!("SPRT '{text}': elo1 must be above elo0"));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("SPRT '{text}': {name} must be between 0 and 0.5, got {p}"));
            }
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// (lower, upper): accept H0 at or below, H1 at or above.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 after these pairs.
    pub fn llr(&self, pairs: &[u32; 5]) -> f64 {
        let Some((n, mean, var)) = mean_var(&PAIR_SCORES, pairs) else { return 0.0 };
        if var <= 0.0 {
            return 0.0; // every pair alike: nothing to tell the hypotheses apart yet
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The test's state after these pairs.
    pub fn state(&self, pairs: &[u32; 5]) -> SprtState {
        let (lower, upper) = self.bounds();
        SprtState { llr: self.llr(pairs), lower, upper }
    }
}

impl std::fmt::Display for Sprt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SPRT elo0={} elo1={} alpha={} beta={}", self.elo0, self.elo1, self.alpha, self.beta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_score_are_inverse() {
        assert!((elo(0.5)).abs() < 1e-9);
        assert!((elo(expected_score(100.0)) - 100.0).abs() < 1e-6);
        assert!((elo(0.75) - 190.85).abs() < 0.1);
        assert!(elo(1.0).is_finite() && elo(0.0) < -1000.0);
        assert_eq!((format_elo(0.5), format_elo(0.75), format_elo(0.25)), ("+0".into(), "+191".into(), "-191".into()));
        assert_eq!((format_elo(0.0), format_elo(1.0)), ("-inf".into(), "+inf".into()));
    }

    #[test]
    fn intervals_narrow_with_more_games() {
        let small = trinomial_interval(6, 2, 2);
        let large = trinomial_interval(60, 20, 20);
        assert!((small.value - 0.7).abs() < 1e-9 && (large.value - 0.7).abs() < 1e-9);
        assert!(large.high - large.low < small.high - small.low);
        assert!(small.low < 0.7 && small.high > 0.7);
        // 40 wins of 40: no spread at all.
        let all = trinomial_interval(40, 0, 0);
        assert_eq!((all.low, all.high), (1.0, 1.0));
    }

    #[test]
    fn sprt_bounds_and_decisions() {
        let sprt = Sprt::parse("0,5").unwrap();
        let (lo, hi) = sprt.bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3);
        // A clearly better engine is accepted, a clearly worse one rejected.
        let better = sprt.state(&[10, 40, 200, 90, 40]);
        assert_eq!(better.decided(), Some(true), "{better:?}");
        let worse = sprt.state(&[40, 90, 200, 40, 10]);
        assert_eq!(worse.decided(), Some(false), "{worse:?}");
        // Too few pairs decide nothing.
        assert_eq!(sprt.state(&[0, 1, 2, 1, 0]).decided(), None);
        // All pairs alike: no information.
        assert_eq!(sprt.llr(&[0, 0, 7, 0, 0]), 0.0);
    }

    #[test]
    fn sprt_llr_matches_worked_examples() {
        // 100 pairs scoring 0, 1/4, 1/2, 3/4, 1 counted 5, 10, 30, 35, 20:
        // mean 0.6375, variance 0.07171875; s0 = 0.5, s1 = 1/(1+10^(-5/400)) =
        // 0.5071955. LLR = 100 * 0.0071955 * (1.275 - 1.0071955) / (2 * 0.07171875).
        let sprt = Sprt::parse("0,5").unwrap();
        assert!((sprt.llr(&[5, 10, 30, 35, 20]) - 1.343357).abs() < 1e-5);
        // 1220 pairs, mean 0.5143443, variance 0.0423147.
        let pairs = [30, 250, 600, 300, 40];
        assert!((sprt.llr(&pairs) - 2.229359).abs() < 1e-5);
        assert!((Sprt::parse("-5,5").unwrap().llr(&pairs) - 5.951304).abs() < 1e-5);
        // The mirror image of a result gives the opposite evidence on a
        // symmetric test.
        let mirror = [40, 300, 600, 250, 30];
        assert!((Sprt::parse("-5,5").unwrap().llr(&mirror) + 5.951304).abs() < 1e-5);
        // Interval of the same pairs: mean ± 1.96 * sqrt(var / n).
        let i = pentanomial_interval(&[5, 10, 30, 35, 20]);
        assert!((i.value - 0.6375).abs() < 1e-12);
        assert!((i.high - i.value - 1.959964 * (0.07171875f64 / 100.0).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn sprt_text_is_checked() {
        assert_eq!(Sprt::parse("-5, 5, 0.1, 0.2").unwrap(), Sprt { elo0: -5.0, elo1: 5.0, alpha: 0.1, beta: 0.2 });
        assert!(Sprt::parse("5,0").unwrap_err().contains("above elo0"));
        assert!(Sprt::parse("0").unwrap_err().contains("expected elo0,elo1"));
        assert!(Sprt::parse("0,x").unwrap_err().contains("'x' is not a number"));
        assert!(Sprt::parse("0,5,0.7,0.05").unwrap_err().contains("alpha"));
    }
}
