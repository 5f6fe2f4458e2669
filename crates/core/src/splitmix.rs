//! SplitMix64 (Steele, Lea and Flood), the one mixer every game uses for
//! Zobrist keys and hash keys: fast, well mixed, and a `const fn`, so key
//! tables are built at compile time and stay the same across runs.

/// The SplitMix64 output for `x`: adds the golden-ratio increment, then
/// finalises. Equal inputs give equal keys; nearby inputs give unrelated ones.
///
/// ```
/// use tabula_core::splitmix::mix;
/// assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
/// assert_ne!(mix(1), mix(2));
/// ```
#[inline(always)]
pub const fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The increment of the generator: 2^64 divided by the golden ratio.
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The SplitMix64 generator: a stream of keys from a seed, usable in
/// `const` code.
///
/// ```
/// use tabula_core::splitmix::{mix, SplitMix64};
/// let mut keys = SplitMix64::new(7);
/// assert_eq!(keys.next_u64(), mix(7));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next key.
    pub const fn next_u64(&mut self) -> u64 {
        let out = mix(self.state);
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        out
    }
}
