//! A tiny reproducible generator for the generated catalogs and order histories: the
//! same seed gives the same data.

pub fn pick<'a>(rng: &mut SplitMix, list: &[&'a str]) -> &'a str {
    list[usize::try_from(rng.below(list.len() as u64)).unwrap_or(0)]
}

/// SplitMix64: a tiny, fast, well-mixed generator; reproducible from its seed.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound`.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound.max(1)
    }
}
