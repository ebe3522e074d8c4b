//! Reading and writing `.npy` files (NumPy's format, also written by PyTorch
//! through `numpy()`), with errors that name the file.
//!
//! Accepted dtypes: little-endian float64, float32 and float16 (widened to
//! `f64` exactly). Arrays are 1-D (vectors) or 2-D in C order (matrices);
//! Fortran order is refused rather than silently transposed. Output is always
//! float64. A header whose shape promises more data than the file holds is
//! refused before anything is allocated, and the header itself is read as
//! NumPy writes it (exactly `descr`, `fortran_order` and a shape tuple, at
//! most 10 000 bytes, as NumPy's reader) before npyz parses it.

use crate::error::{Error, Result};
use npyz::{DType, NpyFile, Order, TypeStr, WriterBuilder};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::Path;

mod header;

/// A dense array of `f64` in C order.
///
/// # Example
/// ```
/// use boundgate::io::Tensor;
/// let t = Tensor::matrix(2, 3, vec![1.0; 6]).unwrap();
/// assert_eq!(t.shape(), &[2, 3]);
/// assert!(Tensor::matrix(2, 3, vec![1.0; 5]).is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    shape: Vec<usize>,
    data: Vec<f64>,
}

impl Tensor {
    /// A vector.
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// let t = Tensor::vector(vec![1.0, 2.0, 3.0]);
    /// assert_eq!((t.shape(), t.ndim(), t.dims2()), (&[3usize][..], 1, None));
    /// assert_eq!(t.data(), &[1.0, 2.0, 3.0]);
    /// ```
    pub fn vector(data: Vec<f64>) -> Tensor {
        Tensor {
            shape: vec![data.len()],
            data,
        }
    }

    /// A `rows x cols` matrix in C (row-major) order.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::io::Tensor;
    /// // [[1, 2, 3], [4, 5, 6]] in C order
    /// let t = Tensor::matrix(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    /// assert_eq!(t.dims2(), Some((2, 3)));
    /// assert_eq!(t.data()[1 * 3 + 0], 4.0); // row 1, column 0
    /// assert!(matches!(Tensor::matrix(2, 3, vec![0.0; 5]), Err(Error::Usage(_))));
    /// // a rows * cols that overflows is refused, not wrapped
    /// assert!(Tensor::matrix(usize::MAX, 2, vec![]).is_err());
    /// ```
    pub fn matrix(rows: usize, cols: usize, data: Vec<f64>) -> Result<Tensor> {
        if rows.checked_mul(cols) != Some(data.len()) {
            return Err(Error::usage(format!(
                "a {rows}x{cols} matrix needs {} values, got {}",
                rows.saturating_mul(cols),
                data.len()
            )));
        }
        Ok(Tensor {
            shape: vec![rows, cols],
            data,
        })
    }

    /// A scalar (a 0-d array).
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// let t = Tensor::scalar(2.5);
    /// assert_eq!((t.shape(), t.ndim(), t.data()), (&[][..], 0, &[2.5][..]));
    /// ```
    pub fn scalar(value: f64) -> Tensor {
        Tensor {
            shape: vec![],
            data: vec![value],
        }
    }

    /// The shape.
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// assert_eq!(Tensor::matrix(0, 4, vec![]).unwrap().shape(), &[0, 4]);
    /// assert_eq!(Tensor::vector(vec![]).shape(), &[0]);
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The values in C order.
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// let t = Tensor::matrix(2, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(t.data(), &[1.0, 2.0, 3.0, 4.0]); // row-major, as given
    /// ```
    pub fn data(&self) -> &[f64] {
        &self.data
    }
    /// Consumes the tensor, returning its values.
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// let t = Tensor::matrix(1, 2, vec![-0.0, 5.0]).unwrap();
    /// let v = t.into_data();
    /// assert_eq!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), [(-0.0f64).to_bits(), 5f64.to_bits()]);
    /// ```
    pub fn into_data(self) -> Vec<f64> {
        self.data
    }
    /// Number of dimensions.
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// assert_eq!(Tensor::scalar(1.0).ndim(), 0);
    /// assert_eq!(Tensor::vector(vec![1.0]).ndim(), 1);
    /// assert_eq!(Tensor::matrix(1, 1, vec![1.0]).unwrap().ndim(), 2);
    /// ```
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Rows and columns of a 2-D tensor.
    ///
    /// # Example
    /// ```
    /// use boundgate::io::Tensor;
    /// assert_eq!(Tensor::matrix(3, 1, vec![0.0; 3]).unwrap().dims2(), Some((3, 1)));
    /// // only 2-D tensors have rows and columns
    /// assert_eq!(Tensor::vector(vec![0.0; 3]).dims2(), None);
    /// assert_eq!(Tensor::scalar(0.0).dims2(), None);
    /// ```
    pub fn dims2(&self) -> Option<(usize, usize)> {
        match self.shape[..] {
            [r, c] => Some((r, c)),
            _ => None,
        }
    }
}

fn npy_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::Npy {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The largest header accepted: NumPy's own reader refuses more than 10 000
/// bytes unless told otherwise (`max_header_size`, NumPy 1.24), and a
/// 1- or 2-D float array's header is about 128.
const MAX_HEADER_BYTES: u64 = 10_000;

/// Checks the header before npyz parses it ([`header::parse`]: npyz's own
/// parser is exponential in bracket nesting, multiplies the dimensions
/// unchecked, and sizes a buffer by the header length before reading it).
/// Returns where the data starts (the header's end), or None for a file
/// that is not `.npy` (npyz then says why).
fn precheck_header(path: &Path, file: &mut File) -> Result<Option<u64>> {
    use std::io::{Seek, SeekFrom};
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut prefix = [0u8; 12];
    let got = file.read(&mut prefix).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    if got < 10 || &prefix[..6] != b"\x93NUMPY" {
        // Not .npy at all: npyz gives the precise message.
        return Ok(None);
    }
    let (len, start) = match prefix[6] {
        1 => (u64::from(u16::from_le_bytes([prefix[8], prefix[9]])), 10u64),
        // Versions 2.0 and 3.0 have a 4-byte length; any other version is
        // left to npyz, which names it (version 9 was read as 2.0 and
        // refused for a "header's length" it never had; review, 2026-11-29).
        2 | 3 if got == 12 => (
            u64::from(u32::from_le_bytes([
                prefix[8], prefix[9], prefix[10], prefix[11],
            ])),
            12,
        ),
        _ => return Ok(None),
    };
    if len > MAX_HEADER_BYTES {
        return Err(npy_error(
            path,
            format!("a header of {len} bytes (NumPy's reader accepts at most {MAX_HEADER_BYTES})"),
        ));
    }
    let mut header = Vec::new();
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    file.by_ref()
        .take(len)
        .read_to_end(&mut header)
        .map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    if (header.len() as u64) < len {
        return Err(npy_error(
            path,
            format!(
                "the header's length, {len} bytes, runs past the end of the file ({} bytes)",
                start + header.len() as u64
            ),
        ));
    }
    let text =
        std::str::from_utf8(&header).map_err(|_| npy_error(path, "the header is not text"))?;
    let parsed = header::parse(text).map_err(|why| npy_error(path, format!("header: {why}")))?;
    let overflows = || npy_error(path, format!("shape {:?} overflows", parsed.shape));
    let mut total: u64 = 1;
    // npyz computes strides as the prefix products of the dimensions (in
    // either order), zeros included: `(0, 2^64 - 1, 8991)` holds no element,
    // yet its strides overflow u64, a panic where overflow checks are on (the
    // npy_reader fuzz target, once it wrote valid headers; 2026-11-29). The
    // product of the nonzero dimensions bounds every prefix product.
    let mut nonzero: u64 = 1;
    for &d in &parsed.shape {
        total = total
            .checked_mul(d)
            .filter(|t| *t <= u64::MAX / 8)
            .ok_or_else(overflows)?;
        nonzero = nonzero.checked_mul(d.max(1)).ok_or_else(overflows)?;
    }
    Ok(Some(start + len))
}

/// Reads a float64/float32/float16 `.npy` file.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::io::read_npy;
/// // A float16 vector [1, 0x3555] written by hand, as NumPy does (header padded to 64 bytes).
/// let header = format!("{:<53}\n", "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }");
/// let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
/// bytes.extend((header.len() as u16).to_le_bytes());
/// bytes.extend(header.as_bytes());
/// bytes.extend([0x00, 0x3c, 0x55, 0x35]);
/// let path = std::env::temp_dir().join(format!("boundgate-doc-read-npy-{}.npy", std::process::id()));
/// std::fs::write(&path, &bytes).unwrap();
/// let t = read_npy(&path);
/// // 0x3555: exponent 13 - 15 = -2, significand 1 + 341/1024: 1365/4096, widened exactly
/// std::fs::write(&path, b"not npy").unwrap();
/// let bad = read_npy(&path);
/// std::fs::remove_file(&path).unwrap();
/// assert_eq!(t.unwrap().data(), &[1.0, 1365.0 / 4096.0]);
/// assert!(matches!(bad, Err(Error::Npy { .. })));
/// assert!(matches!(read_npy(&path), Err(Error::Io { .. }))); // gone
/// ```
pub fn read_npy(path: &Path) -> Result<Tensor> {
    let mut file = File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let data_start = precheck_header(path, &mut file)?;
    let file_len = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
    let npy = NpyFile::new(BufReader::new(file))
        .map_err(|e| npy_error(path, format!("not a valid .npy file ({e})")))?;
    let dtype = npy.dtype();
    let type_str = match &dtype {
        DType::Plain(ts) => ts.clone(),
        other => {
            return Err(npy_error(
                path,
                format!(
                    "dtype {} is not supported (expected float64, float32 or float16)",
                    other.descr()
                ),
            ));
        }
    };
    let item_size = float_item_size(&type_str).ok_or_else(|| {
        npy_error(
            path,
            format!("dtype {type_str} is not supported (expected little-endian float64, float32 or float16)"),
        )
    })?;
    if npy.order() == Order::Fortran && npy.shape().len() > 1 {
        return Err(npy_error(
            path,
            "Fortran-order arrays are not supported (save with numpy.ascontiguousarray)",
        ));
    }
    let shape: Vec<usize> = npy
        .shape()
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| npy_error(path, format!("dimension {d} is too large")))
        })
        .collect::<Result<_>>()?;
    if shape.len() > 2 {
        return Err(npy_error(
            path,
            format!(
                "{}-D arrays are not supported (vectors are 1-D, matrices 2-D)",
                shape.len()
            ),
        ));
    }
    let count = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| npy_error(path, format!("shape {shape:?} overflows")))?;
    // Refuse a header that promises more data than the file holds before
    // allocating for it (the header's own bytes are not counted: a file short
    // by less than that still fails in the read below).
    let needed = (count as u64)
        .checked_mul(item_size)
        .ok_or_else(|| npy_error(path, format!("shape {shape:?} overflows")))?;
    if needed > file_len {
        return Err(npy_error(
            path,
            format!(
                "header promises {count} values ({needed} bytes) but the file has {file_len} bytes"
            ),
        ));
    }
    // A dimension no larger than the file: a non-empty array needs at least
    // one byte per index of every dimension, and an empty one has no reason
    // for a huge dimension, which a kernel would size its output by (a
    // 128-byte file of shape (2^40, 0) made GEMV allocate 8 TB; review).
    if let Some(&d) = shape.iter().find(|&&d| d as u64 > file_len) {
        return Err(npy_error(
            path,
            format!("shape {shape:?}: dimension {d} exceeds the file's {file_len} bytes"),
        ));
    }
    // Bytes after the data: a file that is not what its header says (two
    // arrays concatenated, or a wrong shape written over a larger array);
    // npyz reads only the header's count and would drop the rest unseen.
    if let Some(start) = data_start
        && file_len != u64::MAX
        && file_len > start.saturating_add(needed)
    {
        return Err(npy_error(
            path,
            format!(
                "{} bytes after the {count} values of shape {shape:?} (the file has {file_len} bytes, its header and data {})",
                file_len - start - needed,
                start + needed
            ),
        ));
    }
    let data: Vec<f64> = match item_size {
        8 => npy.into_vec::<f64>(),
        4 => npy
            .into_vec::<f32>()
            .map(|v| v.into_iter().map(f64::from).collect()),
        _ => npy
            .into_vec::<half::f16>()
            .map(|v| v.into_iter().map(|h| h.to_f64()).collect()),
    }
    .map_err(|e| npy_error(path, format!("could not read the data ({e})")))?;
    Ok(Tensor { shape, data })
}

/// Byte size of a little-endian (or native) float type, None otherwise.
fn float_item_size(ts: &TypeStr) -> Option<u64> {
    let descr = ts.to_string();
    match descr.as_str() {
        "<f8" | "=f8" => Some(8),
        "<f4" | "=f4" => Some(4),
        "<f2" | "=f2" => Some(2),
        _ => None,
    }
}

/// Writes a float64 `.npy` file in C order.
///
/// # Example
/// ```
/// use boundgate::io::{Tensor, read_npy, write_npy};
/// let path = std::env::temp_dir().join(format!("boundgate-doc-write-npy-{}.npy", std::process::id()));
/// let t = Tensor::matrix(2, 2, vec![0.1, -0.0, f64::MIN_POSITIVE / 4.0, 1e308]).unwrap();
/// write_npy(&path, &t).unwrap();
/// let bytes = std::fs::read(&path).unwrap();
/// let back = read_npy(&path).unwrap();
/// std::fs::remove_file(&path).unwrap();
/// // float64, C order: the four values are the file's last 32 bytes, little-endian
/// assert_eq!(bytes[bytes.len() - 32..bytes.len() - 24], 0.1f64.to_le_bytes());
/// assert_eq!(back.shape(), &[2, 2]);
/// let bits = |t: &Tensor| t.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
/// assert_eq!(bits(&back), bits(&t)); // bit for bit, -0.0 and the subnormal included
/// ```
pub fn write_npy(path: &Path, tensor: &Tensor) -> Result<()> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::create(path).map_err(io_error)?;
    let shape: Vec<u64> = tensor.shape.iter().map(|&d| d as u64).collect();
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&shape)
        .writer(BufWriter::new(file))
        .begin_nd()
        .map_err(io_error)?;
    writer
        .extend(tensor.data.iter().copied())
        .map_err(io_error)?;
    writer.finish().map_err(io_error)?;
    Ok(())
}

/// Reads a file whole, naming it in the error.
///
/// # Example
/// ```
/// use boundgate::Error;
/// use boundgate::io::read_text;
/// let path = std::env::temp_dir().join(format!("boundgate-doc-read-text-{}.toml", std::process::id()));
/// std::fs::write(&path, "name = \"x\"\n").unwrap();
/// let text = read_text(&path);
/// std::fs::remove_file(&path).unwrap();
/// assert_eq!(text.unwrap(), "name = \"x\"\n");
/// // a missing file is an I/O error naming it
/// let err = read_text(&path).unwrap_err();
/// assert!(matches!(&err, Error::Io { path: p, .. } if *p == path));
/// assert!(err.to_string().starts_with(&path.display().to_string()));
/// ```
pub fn read_text(path: &Path) -> Result<String> {
    // Plans and reports are small; refuse to slurp a hostile multi-GB file.
    const LIMIT: u64 = 256 << 20;
    let mut s = String::new();
    // Read at most LIMIT + 1 bytes whatever the metadata says: a device or a
    // pipe reports length 0 (`--plan /dev/zero` read until memory ran out).
    File::open(path)
        .and_then(|f| {
            let read = f.take(LIMIT + 1).read_to_string(&mut s)?;
            if read as u64 > LIMIT {
                return Err(std::io::Error::other(
                    "larger than 256 MiB: not a plan or report",
                ));
            }
            Ok(read)
        })
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("boundgate-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn round_trip_vector_and_matrix() {
        let p = temp("v.npy");
        let v = Tensor::vector(vec![1.0, -2.5, f64::MIN_POSITIVE, 1e300]);
        write_npy(&p, &v).unwrap();
        assert_eq!(read_npy(&p).unwrap(), v);
        let m = Tensor::matrix(2, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        write_npy(&p, &m).unwrap();
        assert_eq!(read_npy(&p).unwrap(), m);
    }

    #[test]
    fn refuses_garbage_missing_and_truncated() {
        let p = temp("bad.npy");
        std::fs::write(&p, b"not numpy at all").unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(
            e.contains("bad.npy") && e.contains("not a valid .npy"),
            "{e}"
        );

        let e = read_npy(&temp("missing.npy")).unwrap_err().to_string();
        assert!(e.contains("missing.npy"), "{e}");

        // A valid header that promises 10^12 values, with no data.
        std::fs::write(&p, npy_header("<f8", "(1000000000000,)")).unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(e.contains("header promises"), "{e}");

        std::fs::write(&p, npy_header("<i8", "(0,)")).unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(e.contains("not supported"), "{e}");
    }

    /// Shapes with a zero dimension hold no element, but npyz's strides
    /// (prefix products of the dimensions, in either order) overflowed u64
    /// for them: a panic in builds with overflow checks (found by the
    /// npy_reader fuzz target, 2026-11-29). Refused as overflowing shapes.
    #[test]
    fn empty_shapes_whose_strides_overflow_are_refused() {
        let p = temp("zero-dim.npy");
        let max = u64::MAX;
        for (descr, shape) in [
            (">f8", format!("(0, {max}, 8991)")),
            ("<f8", format!("(8991, {max}, 0)")),
            ("<f4", format!("({max}, 2, 0)")),
        ] {
            for order in ["False", "True"] {
                std::fs::write(
                    &p,
                    npy_with_dict(&format!(
                        "{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}"
                    )),
                )
                .unwrap();
                let e = read_npy(&p).unwrap_err().to_string();
                assert!(
                    e.contains("overflows") && e.contains("zero-dim.npy"),
                    "{shape} {order}: {e}"
                );
            }
        }
        // An empty shape whose strides fit is read (or refused for its
        // dimensions), not called overflowing.
        std::fs::write(&p, npy_header("<f8", "(0, 3)")).unwrap();
        assert!(
            !read_npy(&p)
                .map_or_else(|e| e.to_string(), |_| String::new())
                .contains("overflows")
        );
    }

    /// A version-1.0 .npy header (NumPy format spec), without data.
    fn npy_header(descr: &str, shape: &str) -> Vec<u8> {
        npy_with_dict(&format!(
            "{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
        ))
    }

    /// A version-1.0 .npy header with a dictionary given verbatim.
    fn npy_with_dict(dict: &str) -> Vec<u8> {
        let mut dict = dict.to_string();
        while !(10 + dict.len() + 1).is_multiple_of(64) {
            dict.push(' ');
        }
        dict.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out
    }

    #[test]
    fn hostile_shapes_are_refused_before_anything_is_sized_by_them() {
        let p = temp("hostile.npy");
        // (2^40, 0): no data needed, but a kernel would size its output by
        // 2^40 (review, 2026-11-25: GEMV aborted allocating 8 TB).
        std::fs::write(&p, npy_header("<f8", "(1099511627776, 0)")).unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(
            e.contains("hostile.npy") && e.contains("exceeds the file"),
            "{e}"
        );
        // An overflowing shape spelled with double quotes, given twice (npyz
        // takes the last), as a list, or with an escaped key (npyz's product
        // overflowed and panicked: review, 2026-11-26), or nested brackets
        // (npyz's parser is exponential in them: 40 levels did not finish).
        let huge = "(4611686018427387904, 8)";
        for (dict, reason) in [
            (
                format!("{{\"descr\": '<f8', \"fortran_order\": False, \"shape\": {huge}, }}"),
                "overflows",
            ),
            (
                format!(
                    "{{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'shape': {huge}, }}"
                ),
                "given twice",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': [4611686018427387904, 8], }"
                    .into(),
                "not a tuple",
            ),
            (
                format!("{{'descr': '<f8', 'fortran_order': False, 'sh\\x61pe': {huge}, }}"),
                "escapes",
            ),
            (
                format!(
                    "{{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': {}{}}}",
                    "[".repeat(40),
                    "]".repeat(40)
                ),
                "unexpected key 'x'",
            ),
        ] {
            std::fs::write(&p, npy_with_dict(&dict)).unwrap();
            let e = read_npy(&p).unwrap_err().to_string();
            assert!(
                e.contains("hostile.npy") && e.contains(reason),
                "{dict}: {e}"
            );
        }
        // A version-2 header length of 4 GiB in a 16-byte file: npyz sized a
        // buffer by it (an abort under a memory limit); and a long header.
        std::fs::write(&p, b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}").unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(e.contains("at most 10000"), "{e}");
        std::fs::write(&p, b"\x93NUMPY\x02\x00\x00\x01\x00\x00{}").unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(
            e.contains("runs past the end of the file (14 bytes)"),
            "{e}"
        );
        // An ordinary empty vector stays readable.
        std::fs::write(&p, npy_header("<f8", "(0,)")).unwrap();
        assert_eq!(read_npy(&p).unwrap().data(), &[] as &[f64]);
    }

    #[test]
    fn bytes_after_the_data_are_refused() {
        let p = temp("trailing.npy");
        let mut bytes = npy_header("<f8", "(2,)");
        bytes.extend_from_slice(&1.0f64.to_le_bytes());
        bytes.extend_from_slice(&2.0f64.to_le_bytes());
        std::fs::write(&p, &bytes).unwrap();
        assert_eq!(read_npy(&p).unwrap().data(), &[1.0, 2.0]);
        // One more value than the header's shape: npyz read two and dropped
        // the third unseen.
        bytes.extend_from_slice(&3.0f64.to_le_bytes());
        std::fs::write(&p, &bytes).unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(
            e.contains("trailing.npy") && e.contains("8 bytes after the 2 values"),
            "{e}"
        );
        // Also for an empty array followed by data, and a float16 one.
        let mut bytes = npy_header("<f8", "(0,)");
        bytes.push(0);
        std::fs::write(&p, &bytes).unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(e.contains("1 bytes after the 0 values"), "{e}");
        let mut bytes = npy_header("<f2", "(1,)");
        bytes.extend_from_slice(&[0, 0x3c, 0]);
        std::fs::write(&p, &bytes).unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(e.contains("1 bytes after the 1 values"), "{e}");
    }

    #[test]
    fn text_files_are_read_up_to_the_limit_whatever_their_metadata_says() {
        // /dev/zero reports length 0 and never ends: refused after 256 MiB,
        // not read until memory runs out.
        if std::path::Path::new("/dev/zero").exists() {
            let e = read_text(std::path::Path::new("/dev/zero"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("256 MiB"), "{e}");
        }
    }
}
