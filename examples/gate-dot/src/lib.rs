//! A user's kernel: a single-precision dot product, accumulated left to right
//! (one rounding per product, one per addition). `tests/gate.rs` shows how to
//! gate it in CI with `boundgate-verify`.

/// `x . y` in `f32`, recursively summed.
///
/// ```
/// assert_eq!(gate_dot_example::dot_f32(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
/// ```
pub fn dot_f32(x: &[f32], y: &[f32]) -> f32 {
    x.iter().zip(y).fold(0.0f32, |acc, (a, b)| acc + a * b)
}

/// A broken variant for the demonstration in `tests/gate.rs`: it claims
/// single precision but accumulates in half precision (a 10-bit significand),
/// the kind of silent downgrade a gate must catch.
pub fn dot_f32_with_half_accumulator(x: &[f32], y: &[f32]) -> f32 {
    let to_half = |v: f32| {
        // Round to 11 significant bits (nearest even), keeping f32's range.
        let bits = v.to_bits();
        let rounded = bits.wrapping_add(0x0000_0fff + ((bits >> 13) & 1)) & !0x0000_1fff;
        f32::from_bits(rounded)
    };
    x.iter()
        .zip(y)
        .fold(0.0f32, |acc, (a, b)| to_half(acc + a * b))
}
