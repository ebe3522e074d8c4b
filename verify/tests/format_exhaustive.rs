//! Every bit pattern of the small formats (fp16, bf16, e4m3, e5m2 and the
//! 19-bit tf32 patterns), checked against references that share no code with
//! `boundgate_verify::format`:
//!
//! - decoding: the `half` crate (fp16, bf16), `f32::from_bits` (tf32 as the top
//!   19 bits of an fp32), and the encoding formulas written out by hand from
//!   IEEE 754-2019 §3.4 and the OCP 8-bit Floating Point Specification (OFP8,
//!   v1.0, 2023, §4 "E4M3" and "E5M2": bias 7 / 15, E4M3 has no infinities and
//!   only S.1111.111 is NaN, so its largest value is S.1111.110 = 448);
//! - encoding: decode -> encode returns the pattern (NaNs: the canonical NaN);
//! - rounding: every finite value is a fixed point of `round` in every mode; and
//!   rounding every fp16 and bf16 value into the other formats agrees with
//!   rounding *by definition* (IEEE 754 §4.3, §7.4) on the sorted list of the
//!   target's values;
//! - `half`'s f32 -> f16 / bf16 conversion (one rounding, nearest-even) on a
//!   stride through all 2^32 f32 patterns (all of them with `BOUNDGATE_HEAVY=1`).
//!
//! Heavy run (every f32 pattern, release mode recommended):
//! `BOUNDGATE_HEAVY=1 cargo test --release -p boundgate-verify --test format_exhaustive`

use boundgate_verify::format::{Format, OverflowPolicy, RoundingMode};

const MODES: [RoundingMode; 4] = RoundingMode::ALL;

fn heavy() -> bool {
    std::env::var_os("BOUNDGATE_HEAVY").is_some()
}

/// Same value, same sign of zero; any NaN equals any NaN.
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// A bit layout as the standards describe it, written independently of
/// `format::Encoding`.
#[derive(Clone, Copy, Debug)]
struct Layout {
    exponent_bits: u32,
    mantissa_bits: u32,
    /// OCP E4M3: the all-ones exponent holds numbers; only all-ones mantissa is NaN.
    finite_nan_only: bool,
}

impl Layout {
    const FP16: Layout = Layout::ieee(5, 10);
    const BF16: Layout = Layout::ieee(8, 7);
    const TF32: Layout = Layout::ieee(8, 10);
    const E5M2: Layout = Layout::ieee(5, 2);
    const E4M3: Layout = Layout {
        exponent_bits: 4,
        mantissa_bits: 3,
        finite_nan_only: true,
    };

    const fn ieee(exponent_bits: u32, mantissa_bits: u32) -> Layout {
        Layout {
            exponent_bits,
            mantissa_bits,
            finite_nan_only: false,
        }
    }

    /// The layout of an encoded format, from its public description.
    fn of(format: &Format) -> Layout {
        let encoding = format.encoding().expect("an encoded format");
        Layout {
            exponent_bits: encoding.exponent_bits,
            mantissa_bits: encoding.mantissa_bits,
            finite_nan_only: !format.has_infinity(),
        }
    }

    fn width(self) -> u32 {
        1 + self.exponent_bits + self.mantissa_bits
    }

    fn bias(self) -> i32 {
        (1 << (self.exponent_bits - 1)) - 1
    }

    fn fields(self, bits: u64) -> (bool, u64, u64) {
        let t = self.mantissa_bits;
        let sign = (bits >> (self.exponent_bits + t)) & 1 == 1;
        let biased = (bits >> t) & ((1 << self.exponent_bits) - 1);
        let trailing = bits & ((1 << t) - 1);
        (sign, biased, trailing)
    }

    /// IEEE 754-2019 §3.4 / OFP8 §4: (-1)^S 2^(E - bias) (1 + T 2^-t) for normal
    /// E, (-1)^S 2^(1 - bias) (T 2^-t) for E = 0.
    fn decode(self, bits: u64) -> f64 {
        let (negative, biased, trailing) = self.fields(bits);
        let all_ones = (1u64 << self.exponent_bits) - 1;
        let trailing_all_ones = (1u64 << self.mantissa_bits) - 1;
        let sign = if negative { -1.0 } else { 1.0 };
        if biased == all_ones {
            if self.finite_nan_only {
                if trailing == trailing_all_ones {
                    return f64::NAN;
                }
            } else if trailing == 0 {
                return sign * f64::INFINITY;
            } else {
                return f64::NAN;
            }
        }
        // Every step is exact: powers of two and integers below 2^11.
        let fraction = trailing as f64 / 2f64.powi(self.mantissa_bits as i32);
        let magnitude = if biased == 0 {
            2f64.powi(1 - self.bias()) * fraction
        } else {
            2f64.powi(biased as i32 - self.bias()) * (1.0 + fraction)
        };
        sign * magnitude
    }

    fn is_nan_pattern(self, bits: u64) -> bool {
        self.decode(bits).is_nan()
    }

    /// The canonical quiet NaN the module documents: all-ones exponent and the
    /// top trailing bit (IEEE 754 §6.2.1), or E4M3's single NaN with sign 0.
    fn canonical_nan(self) -> u64 {
        let exponent = ((1u64 << self.exponent_bits) - 1) << self.mantissa_bits;
        if self.finite_nan_only {
            exponent | ((1 << self.mantissa_bits) - 1)
        } else {
            exponent | (1 << (self.mantissa_bits - 1))
        }
    }
}

/// A decoder from another library.
type LibraryDecoder = fn(u64) -> f64;

/// The formats with an encoding, their layout, and a reference decoder from
/// another library where there is one.
fn encoded_formats() -> Vec<(Format, Layout, Option<LibraryDecoder>)> {
    vec![
        (
            Format::FP16,
            Layout::FP16,
            Some(|b| half::f16::from_bits(b as u16).to_f64()),
        ),
        (
            Format::BF16,
            Layout::BF16,
            Some(|b| half::bf16::from_bits(b as u16).to_f64()),
        ),
        // TF32 is stored in the top 19 bits of an fp32 word.
        (
            Format::TF32,
            Layout::TF32,
            Some(|b| f32::from_bits((b as u32) << 13) as f64),
        ),
        (Format::E5M2, Layout::E5M2, None),
        (Format::E4M3, Layout::E4M3, None),
        // `Format::custom` gives IEEE-shaped formats the IEEE encoding.
        (custom_ieee(4, 7), Layout::ieee(4, 3), None),
        (custom_ieee(5, 3), Layout::ieee(3, 4), None),
        (custom_ieee(2, 1), Layout::ieee(2, 1), None),
        (custom_ieee(2, 3), Layout::ieee(3, 1), None),
        (custom_ieee(8, 63), Layout::ieee(7, 7), None),
        (
            custom_ieee(11, 15),
            Layout::FP16,
            Some(|b| half::f16::from_bits(b as u16).to_f64()),
        ),
    ]
}

/// An IEEE-shaped custom format: emin = 1 - emax, subnormals, infinities.
fn custom_ieee(precision: u32, emax: i32) -> Format {
    Format::custom(precision, 1 - emax, emax, true, OverflowPolicy::Infinity).unwrap()
}

#[test]
fn decode_matches_independent_references_for_every_pattern() {
    for (format, layout, library) in encoded_formats() {
        assert_eq!(format.bit_width(), Some(layout.width()), "{format}");
        let encoding = format.encoding().unwrap();
        assert_eq!(
            (
                encoding.exponent_bits,
                encoding.mantissa_bits,
                encoding.bias
            ),
            (layout.exponent_bits, layout.mantissa_bits, layout.bias()),
            "{format}"
        );
        for bits in 0..1u64 << layout.width() {
            let ours = format.decode(bits).unwrap();
            let by_formula = layout.decode(bits);
            assert!(
                same(ours, by_formula),
                "{format} {bits:#x}: {ours:e} vs formula {by_formula:e}"
            );
            if let Some(reference) = library {
                let theirs = reference(bits);
                assert!(
                    same(ours, theirs),
                    "{format} {bits:#x}: {ours:e} vs library {theirs:e}"
                );
            }
        }
        // One past the width is refused, not wrapped.
        assert!(format.decode(1u64 << layout.width()).is_err(), "{format}");
    }
}

#[test]
fn decode_encode_round_trips_for_every_pattern() {
    for (format, layout, _) in encoded_formats() {
        let mut nans = 0u64;
        for bits in 0..1u64 << layout.width() {
            let x = format.decode(bits).unwrap();
            let back = format.encode(x).unwrap();
            if layout.is_nan_pattern(bits) {
                assert!(x.is_nan(), "{format} {bits:#x}");
                assert_eq!(back, layout.canonical_nan(), "{format} {bits:#x}");
                nans += 1;
            } else {
                assert_eq!(back, bits, "{format} {bits:#x} -> {x:e}");
            }
        }
        // Count NaN patterns from the specs: E4M3 has two (S.1111.111), IEEE
        // formats 2 (2^t - 1).
        let expected_nans = if layout.finite_nan_only {
            2
        } else {
            2 * ((1u64 << layout.mantissa_bits) - 1)
        };
        assert_eq!(nans, expected_nans, "{format}");
    }
    // Negative zero keeps its sign through both directions.
    for (format, layout, _) in encoded_formats() {
        let sign_bit = 1u64 << (layout.width() - 1);
        assert_eq!(format.encode(-0.0).unwrap(), sign_bit, "{format}");
        assert!(
            format.decode(sign_bit).unwrap().is_sign_negative(),
            "{format}"
        );
    }
}

#[test]
fn every_finite_value_is_a_fixed_point_of_rounding() {
    let mut formats: Vec<Format> = encoded_formats().iter().map(|f| f.0).collect();
    formats.push(
        Format::E4M3
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
    );
    formats.push(
        Format::FP16
            .with_overflow(OverflowPolicy::Saturate)
            .unwrap(),
    );
    for format in formats {
        let layout = Layout::of(&format);
        for bits in 0..1u64 << layout.width() {
            let x = layout.decode(bits);
            if !x.is_finite() {
                continue;
            }
            assert!(format.is_representable(x), "{format} {x:e}");
            for mode in MODES {
                let r = format.round(x, mode);
                assert!(same(r, x), "{format} {mode}: round({x:e}) = {r:e}");
                assert!(!format.overflows(x, mode), "{format} {mode} {x:e}");
            }
        }
    }
}

#[test]
fn positive_values_increase_strictly_and_bound_the_range() {
    for (format, layout, _) in encoded_formats() {
        let positive_patterns = 1u64 << (layout.width() - 1);
        let finite: Vec<(u64, f64)> = (0..positive_patterns)
            .map(|b| (b, layout.decode(b)))
            .filter(|(_, x)| x.is_finite())
            .collect();
        for pair in finite.windows(2) {
            let ((b0, x0), (b1, x1)) = (pair[0], pair[1]);
            assert_eq!(b1, b0 + 1, "{format}: finite patterns are contiguous");
            assert!(x0 < x1, "{format}: {b0:#x} -> {x0:e} !< {b1:#x} -> {x1:e}");
            // The spacing above x0 is its ulp (x0 is not the largest value).
            assert_eq!(format.ulp(x0), x1 - x0, "{format} ulp({x0:e})");
            assert_eq!(format.ulp(-x0), x1 - x0, "{format} ulp(-{x0:e})");
        }
        let (_, largest) = *finite.last().unwrap();
        assert_eq!(format.max_finite(), largest, "{format}");
        assert_eq!(format.min_positive(), finite[1].1, "{format}");
        let smallest_normal = layout.decode(1 << layout.mantissa_bits);
        assert_eq!(format.min_positive_normal(), smallest_normal, "{format}");
        // Everything above the largest finite pattern is infinity or NaN.
        let (last_finite_bits, _) = *finite.last().unwrap();
        for b in last_finite_bits + 1..positive_patterns {
            assert!(!layout.decode(b).is_finite(), "{format} {b:#x}");
        }
        assert_eq!(format.has_infinity(), !layout.finite_nan_only, "{format}");
    }
    // The published constants (OFP8 Table 1, IEEE 754 Table 3.5).
    assert_eq!(Format::E4M3.max_finite(), 448.0);
    assert_eq!(Format::E5M2.max_finite(), 57344.0);
    assert_eq!(Format::FP16.max_finite(), 65504.0);
    assert_eq!(Format::E4M3.min_positive(), 2f64.powi(-9));
    assert_eq!(Format::E5M2.min_positive(), 2f64.powi(-16));
}

/// One non-negative value of a format's grid with an unbounded exponent range:
/// the value and whether its integer significand is even (the tie-breaker of
/// roundTiesToEven, IEEE 754 §4.3.1).
#[derive(Clone, Copy, Debug)]
struct Rung {
    value: f64,
    even: bool,
}

/// Rounding by definition: the target's non-negative values, sorted, then the
/// two grid values above the largest finite one that an unbounded exponent
/// range would add (IEEE 754 §7.4 decides overflow on that grid). For E4M3 the
/// first of them is 1.111b * 2^8 = 480: its code is NaN, but it is on the grid,
/// so 464 < x < 480 rounds to 480 under nearest and overflows.
struct Ladder {
    format: Format,
    rungs: Vec<Rung>,
    max_finite: f64,
}

impl Ladder {
    fn new(format: Format, layout: Layout) -> Ladder {
        let mut rungs: Vec<Rung> = (0..1u64 << (layout.width() - 1))
            .map(|b| (b, layout.decode(b)))
            .filter(|(_, x)| x.is_finite())
            .map(|(b, value)| Rung {
                value,
                even: b & 1 == 0,
            })
            .collect();
        let max_finite = rungs.last().unwrap().value;
        let p = format.precision() as i32;
        for _ in 0..2 {
            let top = rungs.last().unwrap().value;
            let quantum = 2f64.powi(top.log2().floor() as i32 - (p - 1));
            let value = top + quantum;
            let significand = value / 2f64.powi(value.log2().floor() as i32 - (p - 1));
            rungs.push(Rung {
                value,
                even: significand % 2.0 == 0.0,
            });
        }
        Ladder {
            format,
            rungs,
            max_finite,
        }
    }

    /// The IEEE overflow result (§7.4) for a positive value, by the policy.
    fn positive_overflow(&self, mode: RoundingMode) -> f64 {
        let to_infinity = matches!(mode, RoundingMode::NearestEven | RoundingMode::Up);
        match (to_infinity, self.format.overflow_policy()) {
            (false, _) | (true, OverflowPolicy::Saturate) => self.max_finite,
            (true, OverflowPolicy::Infinity) => f64::INFINITY,
            (true, OverflowPolicy::Nan) => f64::NAN,
        }
    }

    fn round(&self, x: f64, mode: RoundingMode) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        if x.is_sign_negative() {
            let mirrored = match mode {
                RoundingMode::Up => RoundingMode::Down,
                RoundingMode::Down => RoundingMode::Up,
                other => other,
            };
            return -self.round_positive(-x, mirrored);
        }
        self.round_positive(x, mode)
    }

    fn round_positive(&self, x: f64, mode: RoundingMode) -> f64 {
        if x.is_infinite() {
            // Exact, not an overflow: clamped by a saturating conversion
            // (`__NV_SATFINITE`), else kept where the format has infinities.
            return if self.format.overflow_policy() == OverflowPolicy::Saturate {
                self.max_finite
            } else if self.format.has_infinity() {
                x
            } else {
                f64::NAN
            };
        }
        let beyond = self.rungs[self.rungs.len() - 2].value;
        if x >= beyond {
            // Every rounding on the unbounded grid is at least `beyond`.
            return self.positive_overflow(mode);
        }
        // rungs[i] <= x < rungs[i + 1]
        let i = self.rungs.partition_point(|r| r.value <= x) - 1;
        let (down, up) = (self.rungs[i], self.rungs[i + 1]);
        let chosen = if down.value == x {
            down
        } else {
            match mode {
                RoundingMode::TowardZero | RoundingMode::Down => down,
                RoundingMode::Up => up,
                RoundingMode::NearestEven => {
                    let (below, above) = (x - down.value, up.value - x);
                    if below < above || (below == above && down.even) {
                        down
                    } else {
                        up
                    }
                }
            }
        };
        if chosen.value > self.max_finite {
            self.positive_overflow(mode)
        } else {
            chosen.value
        }
    }
}

/// Rounds every fp16 and bf16 value into each target and compares with the
/// ladder. (x - down) and (up - x) above are exact: all three are f64 numbers
/// within 2^25 ulps of each other.
#[test]
fn rounding_every_fp16_and_bf16_value_matches_rounding_by_definition() {
    let targets = [
        (Format::E4M3, Layout::E4M3),
        (
            Format::E4M3
                .with_overflow(OverflowPolicy::Saturate)
                .unwrap(),
            Layout::E4M3,
        ),
        (Format::E5M2, Layout::E5M2),
        (
            Format::E5M2
                .with_overflow(OverflowPolicy::Saturate)
                .unwrap(),
            Layout::E5M2,
        ),
        (Format::FP16, Layout::FP16),
        (Format::BF16, Layout::BF16),
        (Format::TF32, Layout::TF32),
    ];
    let inputs: Vec<f64> = (0..1u64 << 16)
        .flat_map(|b| [Layout::FP16.decode(b), Layout::BF16.decode(b)])
        .collect();
    for (format, layout) in targets {
        let ladder = Ladder::new(format, layout);
        for &x in &inputs {
            for mode in MODES {
                let ours = format.round(x, mode);
                let expected = ladder.round(x, mode);
                assert!(
                    same(ours, expected),
                    "{format} {:?} {mode}: round({x:e}) = {ours:e}, by definition {expected:e}",
                    format.overflow_policy()
                );
            }
        }
    }
}

#[test]
fn e4m3_overflow_threshold_follows_the_unbounded_grid() {
    // OFP8 §5 (conversion): the non-saturating E4M3 conversion gives NaN on
    // overflow and the saturating one 448; overflow is decided after rounding.
    // 464 is the midpoint of 448 (1.110b * 2^8) and 480 (1.111b * 2^8): a tie,
    // and 448 has the even significand.
    let e4m3 = Format::E4M3;
    let sat = Format::E4M3
        .with_overflow(OverflowPolicy::Saturate)
        .unwrap();
    let rne = RoundingMode::NearestEven;
    assert_eq!(e4m3.round(464.0, rne), 448.0);
    assert!(e4m3.round(464.0f64.next_up(), rne).is_nan());
    assert!(e4m3.round(480.0, rne).is_nan());
    assert_eq!(e4m3.round(479.0, RoundingMode::TowardZero), 448.0);
    assert!(e4m3.round(448.0f64.next_up(), RoundingMode::Up).is_nan());
    assert_eq!(
        e4m3.round((-448.0f64).next_down(), RoundingMode::Up),
        -448.0
    );
    assert!(e4m3.round(-448.5, RoundingMode::Down).is_nan());
    assert_eq!(sat.round(464.0f64.next_up(), rne), 448.0);
    assert_eq!(sat.round(f64::NEG_INFINITY, rne), -448.0);
    assert!(e4m3.round(f64::INFINITY, RoundingMode::TowardZero).is_nan());
    // 480 is not a number of the format even though the grid contains it.
    assert!(!e4m3.is_representable(480.0));
    assert!(e4m3.encode(480.0).is_err());
}

/// `half`'s f32 -> f16 and f32 -> bf16 conversions round once, to nearest even
/// (IEEE 754 §5.4.2 convertFormat); ours must agree on every f32 input. The
/// f64 -> f16 conversion of `half` is deliberately not used: with F16C it goes
/// through f32 and rounds twice (see format.rs's unit tests and
/// format_vs_mpfr.rs).
#[test]
fn f32_to_fp16_and_bf16_agree_with_half() {
    // An odd stride visits every residue of the low bits; the heavy run takes all.
    let stride: usize = if heavy() { 1 } else { 1021 };
    let mut checked = 0u64;
    for bits in (0..=u32::MAX).step_by(stride) {
        let x = f32::from_bits(bits);
        let x64 = x as f64;
        let ours16 = Format::FP16.round(x64, RoundingMode::NearestEven);
        let half16 = half::f16::from_f32(x).to_f64();
        assert!(
            same(ours16, half16),
            "fp16 {bits:#010x}: {ours16:e} vs half {half16:e}"
        );
        let oursb = Format::BF16.round(x64, RoundingMode::NearestEven);
        let halfb = half::bf16::from_f32(x).to_f64();
        assert!(
            same(oursb, halfb),
            "bf16 {bits:#010x}: {oursb:e} vs half {halfb:e}"
        );
        checked += 1;
    }
    assert!(checked > 4_000_000);
}

#[test]
fn decode_and_encode_refuse_what_they_cannot_do() {
    assert!(Format::FP16.encode(0.1).is_err());
    assert!(Format::FP16.encode(65520.0).is_err());
    assert!(Format::FP16.encode(2f64.powi(-25)).is_err());
    assert!(Format::E4M3.encode(f64::NEG_INFINITY).is_err());
    assert!(Format::E5M2.decode(0x100).is_err());
    assert!(Format::TF32.decode(1 << 19).is_err());
    assert!(Format::FP16.without_subnormals().encode(1.0).is_err());
    assert!(Format::FP16.without_subnormals().decode(0).is_err());
}
