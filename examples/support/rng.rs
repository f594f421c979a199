//! SplitMix64 (Steele, Lea and Flood): tiny, fast, and fixed forever. The
//! one seeded random number generator of the examples, the benchmark and the
//! tests (the synthetic inventory, the reclass differential's inventories,
//! the fuzz targets' generated inputs): no crate whose output could change
//! between versions, so the same seed gives the same numbers on every run
//! and platform.
//!
//! Each program that includes this file uses a part of it.
#![allow(dead_code)]

/// A SplitMix64 stream.
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The stream whose state starts at `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// Stream number `stream` of `seed`: the two mixed, and the first number
    /// dropped, so that neighbouring streams do not start alike.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut r = SplitMix64(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `len` bytes: the low byte of each number.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with a probability of `pct` percent.
    pub fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `n` distinct items, in the slice's order.
    pub fn some<'a, T>(&mut self, items: &'a [T], n: usize) -> Vec<&'a T> {
        let mut taken = vec![false; items.len()];
        let n = n.min(items.len());
        let mut count = 0;
        while count < n {
            let i = self.below(items.len());
            if !taken[i] {
                taken[i] = true;
                count += 1;
            }
        }
        items
            .iter()
            .zip(taken)
            .filter(|(_, t)| *t)
            .map(|(x, _)| x)
            .collect()
    }
}
