//! `.npy` files written byte by byte, for the tests of hostile headers that
//! `boundgate::io::write_npy` cannot write (other dtypes, Fortran order,
//! overflowing shapes, structured dtypes). The library's own unit tests in
//! `src/io.rs` keep their private copy (they cannot see this folder), and so
//! does the fuzz target (a crate of its own).

/// The header dictionary as NumPy writes it: `descr`, `fortran_order` and
/// `shape`, in that order (`shape` as written, e.g. `(2,)` or `(2, 3)`).
pub fn npy_dict(descr: &str, fortran_order: bool, shape: &str) -> String {
    let fortran = if fortran_order { "True" } else { "False" };
    format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}")
}

/// A version-1.0 `.npy` file: the magic, the version, the header's length,
/// the header dictionary given verbatim (padded with spaces and a newline as
/// NumPy pads it, so that the data starts on a multiple of 64 bytes), then
/// `data`.
pub fn npy_bytes(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut dict = dict.to_string();
    while !(10 + dict.len() + 1).is_multiple_of(64) {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(data);
    out
}
