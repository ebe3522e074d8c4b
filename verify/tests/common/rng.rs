//! Fixed-seed generators with no dependencies: splitmix64 with adversarial
//! f64 values, and xorshift64.

use boundgate_verify::oracle::Transpose;

/// splitmix64.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn sign(&mut self) -> f64 {
        if self.next() & 1 == 0 { 1.0 } else { -1.0 }
    }
    /// Adversarial finite values (and, if `specials`, NaN and infinities).
    pub fn value(&mut self, specials: bool) -> f64 {
        let kinds = if specials { 18 } else { 15 };
        match self.below(kinds) {
            0 => 0.0,
            1 => -0.0,
            2 => self.sign() * f64::from_bits(1 + self.below((1 << 52) - 1)),
            3 => self.sign() * f64::from_bits((0x7fe << 52) | (self.next() >> 12)),
            4 => self.sign() * f64::from_bits((1 << 52) | (self.next() >> 12)),
            5 => f64::from_bits(self.next() & !(0x7ff << 52) | (self.below(2047) << 52)),
            6 => self.sign() * (self.below(7) + 1) as f64,
            7 => self.sign() * 2f64.powi(self.below(2098) as i32 - 1074),
            8 => self.sign() * f64::MAX,
            9 => self.sign() * f64::from_bits(1),
            12 if specials => f64::NAN,
            13 if specials => f64::INFINITY,
            14 if specials => f64::NEG_INFINITY,
            _ => {
                // Few significant bits, near 1: products cancel and tie.
                let m = self.below(1 << 12) as f64 - 2048.0;
                m * 2f64.powi(self.below(24) as i32 - 12)
            }
        }
    }
    /// Scalars (alpha, beta) at the edges: zeros, ones, extremes, 0.1.
    pub fn scalar(&mut self) -> f64 {
        match self.below(14) {
            0 => 0.0,
            1 => -0.0,
            2 => 1.0,
            3 => -1.0,
            4 => self.sign() * f64::MAX,
            5 => self.sign() * f64::from_bits(1 + self.below(1 << 20)),
            6 => self.sign() * f64::MIN_POSITIVE,
            7 => 0.1,
            8 => self.sign() * 2f64.powi(self.below(2098) as i32 - 1074),
            _ => self.value(false),
        }
    }
    pub fn vec(&mut self, n: usize, specials: bool) -> Vec<f64> {
        (0..n).map(|_| self.value(specials)).collect()
    }
    pub fn transpose(&mut self) -> Transpose {
        if self.next() & 1 == 0 {
            Transpose::No
        } else {
            Transpose::Yes
        }
    }
}

/// xorshift64.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in `[0, 1)`, 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A random significand in `[1, 2)`.
    pub fn significand(&mut self) -> f64 {
        1.0 + (self.next() >> 12) as f64 * f64::EPSILON
    }
    /// Zeros, subnormals, huge and tiny values, ordinary ones, either sign.
    pub fn wide(&mut self) -> f64 {
        let sign = if self.below(2) == 0 { 1.0 } else { -1.0 };
        let v = match self.below(8) {
            0 => 0.0,
            1 => f64::from_bits(1 + self.below((1 << 52) - 1)),
            2 => (1.0 + self.unit()) * 2f64.powi(self.below(2000) as i32 - 1000),
            3 => (1.0 + self.unit()) * 2f64.powi(1000 + self.below(23) as i32),
            4 => (1.0 + self.unit()) * 2f64.powi(-1022 + self.below(60) as i32),
            _ => self.unit() * 4.0 - 2.0,
        };
        sign * v
    }
}
