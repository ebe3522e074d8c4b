//! Exact binning of qdot's products (paper §3.2): the two `fexp` definitions
//! (eq. (1.1) and the IEEE exponent), the two binnings (Algorithm 3.2's
//! exponent sums and Definition 3.1's exponents of the products) and the bins
//! `(u_k - 1, u_k]` computed from the data.

use super::*;
use crate::bounds::directed::add_product_enclosure;
use crate::format::ldexp;

/// Which definition of `fexp` (paper eq. (1.1) versus the IEEE exponent).
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::Fexp;
/// assert_eq!(Fexp::Ieee.of(0.75), Some(-1));
/// assert_eq!(Fexp::Paper.of(0.75), Some(0)); // ceil(log2 0.75)
/// assert_eq!(Fexp::Paper.of(0.5), Some(-1)); // powers of two agree
/// assert_eq!(Fexp::Paper.of(3.0), Some(1)); // |x| >= 1: floor for both
/// assert_eq!(Fexp::Ieee.of(0.0), None); // undefined
/// assert_eq!(Fexp::Ieee.of(f64::from_bits(1)), Some(-1074)); // subnormals: the true exponent
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fexp {
    /// `floor(log2|x|)`: the IEEE unbiased exponent (for subnormals, that of
    /// the leading bit), what the paper's implementation extracts (§3.2).
    Ieee,
    /// Eq. (1.1): `floor(log2|x|)` for `|x| >= 1`, `ceil(log2|x|)` for `|x| < 1`.
    Paper,
}

impl Fexp {
    /// Both definitions.
    pub const ALL: [Fexp; 2] = [Fexp::Ieee, Fexp::Paper];

    /// Its name: `ieee` or `paper`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::Fexp;
    /// assert_eq!(Fexp::ALL.map(Fexp::name), ["ieee", "paper"]);
    /// // The name parses back to the definition.
    /// for f in Fexp::ALL {
    ///     assert_eq!(f.name().parse::<Fexp>().unwrap(), f);
    /// }
    /// assert!("floor".parse::<Fexp>().is_err());
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Fexp::Ieee => "ieee",
            Fexp::Paper => "paper",
        }
    }

    /// `fexp(x)`; `None` for 0 (undefined) and for NaN and infinities.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::Fexp;
    /// // |x| >= 1: both floor(log2 |x|).
    /// assert_eq!(Fexp::Ieee.of(-3.0), Some(1));
    /// assert_eq!(Fexp::Paper.of(-3.0), Some(1));
    /// assert_eq!(Fexp::Ieee.of(f64::MAX), Some(1023));
    /// // |x| < 1, not a power of two: (1.1) takes the ceiling, one above the IEEE exponent;
    /// // 3 2^-1074 (a subnormal) has IEEE exponent -1073.
    /// let tiny = f64::from_bits(3);
    /// assert_eq!(Fexp::Ieee.of(tiny), Some(-1073));
    /// assert_eq!(Fexp::Paper.of(tiny), Some(-1072));
    /// assert_eq!(Fexp::Paper.of(0.1), Some(-3)); // ceil(log2 0.1) = ceil(-3.32)
    /// // Undefined at 0 and for non-finite values.
    /// assert_eq!(Fexp::Paper.of(-0.0), None);
    /// assert_eq!(Fexp::Ieee.of(f64::INFINITY), None);
    /// assert_eq!(Fexp::Ieee.of(f64::NAN), None);
    /// ```
    #[inline]
    pub fn of(self, x: f64) -> Option<i32> {
        if x == 0.0 || !x.is_finite() {
            return None;
        }
        let floor = exponent_of(x.abs());
        Some(floor + i32::from(self.ceiling_step(floor < 0, is_power_of_two(x))))
    }

    /// What `fexp` adds to `floor(log2 |v|)`: 1 where (1.1) takes the ceiling
    /// (`|v| < 1` and not a power of two), else 0. The one place the two
    /// definitions differ, for values, exact sums and exact products alike.
    fn ceiling_step(self, below_one: bool, power_of_two: bool) -> bool {
        self == Fexp::Paper && below_one && !power_of_two
    }

    /// `fexp` of an exact value (e.g. the exact `x^T y` from the oracle), which
    /// may lie outside the `f64` range; `None` for zero or a non-finite sum.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::Fexp;
    /// use boundgate_verify::oracle::dot;
    /// let s = dot(&[0.5, 0.25], &[1.0, 1.0]).unwrap(); // 0.75
    /// assert_eq!(Fexp::Ieee.of_exact(&s), Some(-1));
    /// assert_eq!(Fexp::Paper.of_exact(&s), Some(0));
    /// let tiny = dot(&[2f64.powi(-1000)], &[2f64.powi(-1000)]).unwrap(); // 2^-2000
    /// assert_eq!(Fexp::Paper.of_exact(&tiny), Some(-2000));
    /// ```
    pub fn of_exact(self, s: &ExactSum) -> Option<i64> {
        let f = s.to_float()?;
        if f.is_zero() {
            return None;
        }
        // f = m 2^exp with 1/2 <= |m| < 1, so floor(log2 |f|) = exp - 1.
        let exp = i64::from(f.get_exp()?);
        let floor = exp - 1;
        let power_of_two = (f.abs() >> (exp as i32)) == 0.5;
        Some(floor + i64::from(self.ceiling_step(floor < 0, power_of_two)))
    }
}

impl fmt::Display for Fexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Fexp {
    type Err = VerifyError;
    fn from_str(s: &str) -> Result<Fexp> {
        match s {
            "ieee" => Ok(Fexp::Ieee),
            "paper" => Ok(Fexp::Paper),
            other => Err(VerifyError::invalid(
                "fexp",
                other,
                "expected `ieee` or `paper`",
            )),
        }
    }
}

/// What an index is binned by: the two readings of the paper's selection.
///
/// Theorems 3.2-3.5 are stated for Definition 3.1's `(l, u)`-exponent bins
/// of `x ⊙ y`, by `fexp(x_i y_i)` ("from a purely theoretical standpoint",
/// §3.2); Algorithm 3.2 (line 3) and the paper's implementation bin by
/// `fexp(x_i) + fexp(y_i)`, read off the bits, which is `fexp(x_i y_i)` or one
/// less. With the exponent sum a product of bin `u_k` can reach
/// `2^(u_k + 2)`, while the proof of Theorem 3.2 uses `|x_j y_j| < 2^(u_k + 1)`
/// (docs/findings/qdot.md, "Which bins"). [`Binning::Product`] is the
/// theorems' own setting, so the printed bounds are evaluated on the bins
/// their hypotheses name.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{Binning, Fexp};
/// // 1.5 * 1.5 = 2.25: the exponents sum to 0, the product's exponent is 1.
/// assert_eq!(Binning::Factors.exponent(1.5, 1.5, Fexp::Ieee), Some(0));
/// assert_eq!(Binning::Product.exponent(1.5, 1.5, Fexp::Ieee), Some(1));
/// // 0.75 * 0.75 = 0.5625 lies in (2^-1, 2^0): (1.1) takes the ceiling, 0; the IEEE exponent is -1.
/// assert_eq!(Binning::Product.exponent(0.75, 0.75, Fexp::Paper), Some(0));
/// assert_eq!(Binning::Factors.exponent(0.75, 0.75, Fexp::Paper), Some(0));
/// assert_eq!(Binning::Product.exponent(0.75, 0.75, Fexp::Ieee), Some(-1));
/// assert_eq!(Binning::Product.exponent(0.0, 3.0, Fexp::Ieee), None); // zero product: no bin
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Binning {
    /// `fexp(x_i) + fexp(y_i)`: Algorithm 3.2, line 3 (the default; what the
    /// paper's implementation and experiments compute).
    #[default]
    Factors,
    /// `fexp(x_i y_i)` of the exact product: Definition 3.1 applied to `x ⊙ y`,
    /// the bins of Theorems 3.2-3.5.
    Product,
}

impl Binning {
    /// Both binnings.
    pub const ALL: [Binning; 2] = [Binning::Factors, Binning::Product];

    /// Its name: `factors` or `product`.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::Binning;
    /// assert_eq!(Binning::ALL.map(Binning::name), ["factors", "product"]);
    /// assert_eq!(Binning::default().name(), "factors"); // Algorithm 3.2's
    /// for b in Binning::ALL {
    ///     assert_eq!(b.name().parse::<Binning>().unwrap(), b);
    /// }
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Binning::Factors => "factors",
            Binning::Product => "product",
        }
    }

    /// What an index is binned by, as a formula (for hypotheses and reports).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::Binning;
    /// assert_eq!(Binning::Factors.rule(), "fexp(x_i) + fexp(y_i)"); // Algorithm 3.2, line 3
    /// assert_eq!(Binning::Product.rule(), "fexp(x_i y_i)"); // Definition 3.1 on x ⊙ y
    /// ```
    pub fn rule(self) -> &'static str {
        match self {
            Binning::Factors => "fexp(x_i) + fexp(y_i)",
            Binning::Product => "fexp(x_i y_i)",
        }
    }

    /// The bin exponent `u` of index `(x, y)`: `None` if `x y = 0` or either is
    /// not finite. The product's exponent is decided exactly, on the integer
    /// significands (`x y` itself may round up to a power of two, or over- or
    /// underflow).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::{Binning, Fexp};
    /// // (1 + 2^-52)(1 - 2^-52) = 1 - 2^-104 < 1, although the product rounds to 1.
    /// let (x, y) = (1.0 + f64::EPSILON, 1.0 - f64::EPSILON);
    /// assert_eq!(x * y, 1.0);
    /// assert_eq!(Fexp::Ieee.of(x * y), Some(0));
    /// assert_eq!(Binning::Product.exponent(x, y, Fexp::Ieee), Some(-1));
    /// assert_eq!(Binning::Product.exponent(x, y, Fexp::Paper), Some(0)); // ceiling below 1
    /// // Algorithm 3.2's exponent sum agrees here: 0 + -1.
    /// assert_eq!(Binning::Factors.exponent(x, y, Fexp::Ieee), Some(-1));
    /// // 1e200 * 1e200 overflows binary64; its exponent is still floor(log2 1e400) = 1328.
    /// assert!((1e200 * 1e200f64).is_infinite());
    /// assert_eq!(Binning::Product.exponent(1e200, 1e200, Fexp::Ieee), Some(1328));
    /// assert_eq!(Binning::Product.exponent(f64::NAN, 1.0, Fexp::Ieee), None);
    /// ```
    pub fn exponent(self, x: f64, y: f64, fexp: Fexp) -> Option<i32> {
        match self {
            Binning::Factors => Some(fexp.of(x)? + fexp.of(y)?),
            Binning::Product => {
                let (mx, ex) = integer_significand(x)?;
                let (my, ey) = integer_significand(y)?;
                // x y = mx my 2^(ex + ey - 104), mx my in [2^104, 2^106).
                let product = u128::from(mx) * u128::from(my);
                let floor = ex + ey + i32::from(product >= 1u128 << 105);
                let power_of_two = product == 1u128 << 104;
                Some(floor + i32::from(fexp.ceiling_step(floor < 0, power_of_two)))
            }
        }
    }
}

/// `(m, e)` with `|v| = m 2^(e - 52)`, `2^52 <= m < 2^53` (subnormals
/// normalised), so `e = floor(log2 |v|)`; `None` for zero, NaN and infinities.
fn integer_significand(v: f64) -> Option<(u64, i32)> {
    if v == 0.0 || !v.is_finite() {
        return None;
    }
    let bits = v.to_bits() & !(1u64 << 63);
    let biased = (bits >> 52) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        let shift = fraction.leading_zeros() - 11;
        Some((fraction << shift, -1022 - shift as i32))
    } else {
        Some((fraction | (1u64 << 52), biased - 1023))
    }
}

impl fmt::Display for Binning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Binning {
    type Err = VerifyError;
    fn from_str(s: &str) -> Result<Binning> {
        match s {
            "factors" => Ok(Binning::Factors),
            "product" => Ok(Binning::Product),
            other => Err(VerifyError::invalid(
                "binning",
                other,
                "expected `factors` or `product`",
            )),
        }
    }
}

/// One exponent bin of exact binning: the indices `i` whose bin exponent
/// ([`Binning::exponent`]) is `exponent`, i.e. the bin `(exponent - 1, exponent]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ExponentBin {
    /// `u_k` (and `l_k = u_k - 1`).
    pub exponent: i32,
    /// `M_k`, the number of indices in the bin.
    pub count: u64,
    /// An upper bound (rounded up) of `sum |x_j y_j| 2^(-u_k)` over the bin,
    /// the sum of the scaled products `|a_j b_j|`; the exact sum is below
    /// `4 M_k` ([`Binning::Factors`]) or `2 M_k` ([`Binning::Product`]), so
    /// this is at most that bound rounded up (the a-priori magnitude of
    /// [`corrected_thm_3_2`](super::corrected_thm_3_2)).
    pub scaled_abs_sum: f64,
    /// An enclosure `[lo, hi]` of the signed `sum x_j y_j 2^(-u_k)` over the
    /// bin (each scaled product and sum rounded outward): what the bin's
    /// result is near, where `scaled_abs_sum` can be far larger (cancelling
    /// products), for the overflow checks of [`rigorous`](super::rigorous).
    pub scaled_sum: (f64, f64),
}

/// Exact binning of `x ⊙ y` (Algorithm 3.2 lines 3-6 with the exact-binning
/// strategy) by `fexp(x_i) + fexp(y_i)` ([`ExponentBins::new`]) or by
/// `fexp(x_i y_i)` ([`ExponentBins::binned`] with [`Binning::Product`]),
/// computed from the data for the checker: nonempty bins in ascending
/// exponent order.
///
/// # Example
/// ```
/// use boundgate_verify::bounds::qdot::{ExponentBins, Fexp};
/// let x = [1.5, 0.75, 0.0, 3.0];
/// let y = [1.0, 1.0, 5.0, 0.5];
/// let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
/// // e = [0, -1, (zero), 1 + -1 = 0]
/// assert_eq!(bins.zeros, 1);
/// assert_eq!((bins.e_min(), bins.e_max()), (Some(-1), Some(0)));
/// assert_eq!(bins.bins.iter().map(|b| (b.exponent, b.count)).collect::<Vec<_>>(), vec![(-1, 1), (0, 2)]);
/// // Under (1.1), fexp(0.75) = 0 (and fexp(0.5) = -1): the three nonzero products share exponent 0.
/// let paper = ExponentBins::new(&x, &y, Fexp::Paper).unwrap();
/// assert_eq!(paper.bins.len(), 1);
/// assert!(ExponentBins::new(&[f64::NAN], &[1.0], Fexp::Ieee).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExponentBins {
    /// The `fexp` definition used.
    pub fexp: Fexp,
    /// What the indices are binned by.
    pub binning: Binning,
    /// The nonempty bins, ascending.
    pub bins: Vec<ExponentBin>,
    /// Indices left out because `x_i y_i = 0`.
    pub zeros: u64,
    /// The vector length `n` (zeros included).
    pub n: usize,
}

impl ExponentBins {
    /// Bins `x` and `y` (the values the kernel reads) by Algorithm 3.2's
    /// `fexp(x_i) + fexp(y_i)`.
    ///
    /// # Errors
    /// [`VerifyError::LengthMismatch`], or [`VerifyError::NonFinite`] for a NaN
    /// or an infinity (`fexp` is undefined there).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::{ExponentBins, Fexp};
    /// use boundgate_verify::format::{Format, RoundingMode};
    /// use boundgate_verify::oracle::ExactSum;
    /// // fexp sums (IEEE): 0 + 0, 1 + -1, -4 + -3.
    /// let (x, y) = ([1.5, 3.0, 0.1], [1.5, 0.5, 0.2]);
    /// let bins = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
    /// assert_eq!(bins.bins.iter().map(|b| (b.exponent, b.count)).collect::<Vec<_>>(), [(-7, 1), (0, 2)]);
    /// // Bin 0: the scaled products 2.25 and 1.5, exact (scalings by powers of two).
    /// assert_eq!(bins.bins[1].scaled_abs_sum, 3.75);
    /// assert!(bins.bins[1].scaled_abs_sum < 4.0 * 2.0); // below 4 M_k
    /// // Bin -7: 0.1 * 0.2 * 2^7, the exact product rounded up.
    /// let mut s = ExactSum::new();
    /// s.add_product(0.1 * 16.0, 0.2 * 8.0);
    /// assert_eq!(bins.bins[0].scaled_abs_sum, s.round(Format::FP64, RoundingMode::Up));
    /// assert!(ExponentBins::new(&[1.0], &[1.0, 2.0], Fexp::Ieee).is_err());
    /// assert!(ExponentBins::new(&[f64::INFINITY], &[1.0], Fexp::Ieee).is_err());
    /// ```
    pub fn new(x: &[f64], y: &[f64], fexp: Fexp) -> Result<ExponentBins> {
        ExponentBins::binned(x, y, fexp, Binning::Factors)
    }

    /// Bins `x` and `y` by `binning`.
    ///
    /// # Errors
    /// As [`ExponentBins::new`].
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::{Binning, ExponentBins, Fexp};
    /// let (x, y) = ([1.5, 1.0], [1.5, 1.0]); // products 2.25 and 1
    /// let sums = ExponentBins::new(&x, &y, Fexp::Ieee).unwrap();
    /// assert_eq!(sums.bins.len(), 1); // both in bin 0
    /// let products = ExponentBins::binned(&x, &y, Fexp::Ieee, Binning::Product).unwrap();
    /// assert_eq!(products.bins.iter().map(|b| b.exponent).collect::<Vec<_>>(), [0, 1]);
    /// assert_eq!(products.bins[1].scaled_abs_sum, 1.125); // 2.25 / 2
    /// ```
    pub fn binned(x: &[f64], y: &[f64], fexp: Fexp, binning: Binning) -> Result<ExponentBins> {
        require_same_len("x and y", x.len(), y.len())?;
        let mut exponents = Vec::with_capacity(x.len());
        let (mut lo, mut hi) = (i32::MAX, i32::MIN);
        for (i, (&a, &b)) in x.iter().zip(y).enumerate() {
            for (what, v) in [("x", a), ("y", b)] {
                if !v.is_finite() {
                    return Err(VerifyError::NonFinite {
                        what: what.into(),
                        index: i,
                        value: v,
                    });
                }
            }
            let e = binning.exponent(a, b, fexp);
            if let Some(e) = e {
                lo = lo.min(e);
                hi = hi.max(e);
            }
            exponents.push(e);
        }
        let zeros = exponents.iter().filter(|e| e.is_none()).count() as u64;
        let mut bins = Vec::new();
        if lo <= hi {
            let mut count = vec![0u64; (hi - lo + 1) as usize];
            let mut sums = vec![0.0f64; count.len()];
            let mut signed = vec![(0.0f64, 0.0f64); count.len()];
            for (i, e) in exponents.iter().enumerate() {
                let Some(e) = *e else { continue };
                let k = (e - lo) as usize;
                count[k] += 1;
                // Exact scalings by powers of two: |x| 2^-fa in [1, 2) with the
                // IEEE exponent fa, |y| 2^-(e - fa) in [1/4, 2) (e - fa is
                // fexp(y) plus 0, 1 or 2 for either binning and definition).
                let fa = Fexp::Ieee.of(x[i]).unwrap_or(0);
                let a = ldexp(x[i].abs(), -fa);
                let b = ldexp(y[i].abs(), fa - e);
                sums[k] = add_up(sums[k], mul_up(a, b));
                signed[k] = add_product_enclosure(signed[k], a.copysign(x[i]), b.copysign(y[i]));
            }
            for (k, (&c, &s)) in count.iter().zip(&sums).enumerate() {
                if c > 0 {
                    bins.push(ExponentBin {
                        exponent: lo + k as i32,
                        count: c,
                        scaled_abs_sum: s,
                        scaled_sum: signed[k],
                    });
                }
            }
        }
        Ok(ExponentBins {
            fexp,
            binning,
            bins,
            zeros,
            n: x.len(),
        })
    }

    /// `e_min` (None without nonzero products).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::{ExponentBins, Fexp};
    /// // Products 2^-10 * 1 and 8 * 4: bins -10 and 5.
    /// let bins = ExponentBins::new(&[2f64.powi(-10), 8.0], &[1.0, 4.0], Fexp::Ieee).unwrap();
    /// assert_eq!(bins.e_min(), Some(-10));
    /// // Only zero products: no bins, no e_min.
    /// assert_eq!(ExponentBins::new(&[0.0], &[1.0], Fexp::Ieee).unwrap().e_min(), None);
    /// ```
    pub fn e_min(&self) -> Option<i32> {
        self.bins.first().map(|b| b.exponent)
    }
    /// `e_max` (None without nonzero products).
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::{ExponentBins, Fexp};
    /// let bins = ExponentBins::new(&[2f64.powi(-10), 8.0], &[1.0, 4.0], Fexp::Ieee).unwrap();
    /// assert_eq!(bins.e_max(), Some(5)); // 8 * 4 = 2^5
    /// assert_eq!(ExponentBins::new(&[0.0], &[1.0], Fexp::Ieee).unwrap().e_max(), None);
    /// ```
    pub fn e_max(&self) -> Option<i32> {
        self.bins.last().map(|b| b.exponent)
    }
    /// `N_bins`, the number of nonempty bins.
    ///
    /// # Example
    /// ```
    /// use boundgate_verify::bounds::qdot::{ExponentBins, Fexp};
    /// // Exponents 0, 0, 5 and a zero product: two nonempty bins (bins between are not counted).
    /// let bins = ExponentBins::new(&[1.0, 1.5, 8.0, 0.0], &[1.0, 1.0, 4.0, 3.0], Fexp::Ieee).unwrap();
    /// assert_eq!(bins.n_bins(), 2);
    /// assert_eq!(bins.zeros, 1);
    /// ```
    pub fn n_bins(&self) -> usize {
        self.bins.len()
    }
}
