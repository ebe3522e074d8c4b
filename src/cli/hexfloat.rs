//! C99 `%a`-style hexadecimal floating-point text.

/// Formats an `f64` exactly as a hexadecimal float (`0x1.8p+1` for 3).
///
/// # Example
/// ```
/// use boundgate::cli::hex_float;
/// assert_eq!(hex_float(3.0), "0x1.8p+1");
/// assert_eq!(hex_float(-0.1), "-0x1.999999999999ap-4");
/// assert_eq!(hex_float(f64::from_bits(1)), "0x0.0000000000001p-1022");
/// assert_eq!(hex_float(0.0), "0x0p+0");
/// assert_eq!(hex_float(f64::NEG_INFINITY), "-inf");
/// ```
pub fn hex_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 && fraction == 0 {
        return format!("{sign}0x0p+0");
    }
    let (lead, exponent) = if biased == 0 {
        (0, -1022)
    } else {
        (1, biased - 1023)
    };
    let digits = format!("{fraction:013x}");
    let digits = digits.trim_end_matches('0');
    let point = if digits.is_empty() {
        String::new()
    } else {
        format!(".{digits}")
    };
    format!("{sign}0x{lead}{point}p{exponent:+}")
}
