//! The sparse part on the device: the exactly rounded limit of the code's
//! reduction rule, the masks of `A^r` and `B^r` as CSR, and the density
//! switch (Gu, Algorithm 1): a reduced matrix sparser than `eta` leaves its
//! CSR for `residual_combine` to multiply (the SpMMs fused into the
//! combination), one that is not gets the dense product.

use super::*;

/// How `residual_mask_count_cols` and `residual_mask_fill_cols` split B's
/// `rows x cols` into chunks of rows: enough chunks that about 2^18 threads
/// (one per column and chunk) share the work, at most 65535 (the grid's y).
pub(super) struct ColumnChunks {
    /// Rows per chunk.
    rows: usize,
    /// Number of chunks.
    chunks: usize,
    /// Blocks of 256 threads over the columns, one grid row per chunk.
    launch: LaunchConfig,
}

impl ColumnChunks {
    pub(super) fn new(rows: usize, cols: usize) -> ColumnChunks {
        let wanted = (1usize << 18)
            .div_ceil(cols.max(1))
            .clamp(1, crate::gpu::grid::MAX_GRID_Y);
        let chunk_rows = rows.div_ceil(wanted).max(1);
        let chunks = rows.div_ceil(chunk_rows).max(1);
        ColumnChunks {
            rows: chunk_rows,
            chunks,
            launch: LaunchConfig {
                grid_dim: (cols.div_ceil(256).max(1) as u32, chunks as u32, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            },
        }
    }
}

/// The most values one `residual_abs_bins_f32` launch bins: each of its terms
/// is below 2^31 (a significand shifted by up to 7 bits, kernels/residual.cu),
/// so a u64 bin holds 2^33 of them; a longer input is binned in pieces, each
/// with bins of its own, merged exactly on the host. A multiple of 4, so that
/// every piece starts 16-byte aligned for the kernel's float4 loads.
const BINS_CHUNK: usize = 1 << 32;

/// The pieces `(start, len)` in which `residual_abs_bins_f32` bins `len`
/// values: consecutive, covering them once, each at most `chunk` long; one
/// empty piece for an empty input (its launch leaves the bins zero).
fn bins_pieces(len: usize, chunk: usize) -> Vec<(usize, usize)> {
    let count = len.div_ceil(chunk).max(1);
    (0..count)
        .map(|p| (p * chunk, len.saturating_sub(p * chunk).min(chunk)))
        .collect()
}

/// `mean_nnz |x|` over the `len` values of each `x`, exactly rounded: the
/// device's exponent-field histograms (`residual_abs_bins_f32`), read back
/// in one copy (one synchronisation for A and B, 2026-11-27; it was one per
/// histogram and one per count), weighted and divided on the host
/// ([`AbsSumBins::from_f32_bins`]).
pub(super) fn device_nonzero_means<const N: usize>(
    dev: &Device,
    matrices: [(&CudaSlice<f32>, usize); N],
) -> Result<[f64; N], GpuError> {
    // Per launch: F32_FIELDS bins, then the count (the kernel's bins[256]).
    const STRIDE: usize = F32_FIELDS + 1;
    let bins_fn = dev.function("residual_abs_bins_f32")?;
    let resident = dev.resident_blocks(&bins_fn, 256, 0)?;
    // Each matrix's pieces of at most BINS_CHUNK values (one for any matrix
    // under 2^32 values, i.e. 16 GiB).
    let pieces = matrices.map(|(_, len)| bins_pieces(len, BINS_CHUNK));
    let mut all = dev.zeros::<u64>(pieces.iter().map(Vec::len).sum::<usize>() * STRIDE)?;
    // Every launch in order: its matrix and piece; launch i's bins are the
    // i-th STRIDE of `all`.
    let pieces_in_order = matrices
        .iter()
        .zip(&pieces)
        .flat_map(|(&(x, _), pieces)| pieces.iter().map(move |&(start, len)| (x, start, len)));
    for (launch_index, (x, start, piece_len)) in pieces_in_order.enumerate() {
        let len64 = piece_len as u64;
        // A grid-stride loop over as many blocks as the device holds at
        // once (one wave), fewer for a short input: each block flushes its
        // shared histogram once, so few global atomics whatever the size.
        // The bins are exact integer sums, the same for any grid. (Until
        // 2026-11-27 at most 1024 blocks: 1.3 waves on the H100, 792
        // resident, the last 232 blocks alone on the device; 58 us per
        // 4096^2 matrix.)
        let blocks = piece_len.div_ceil(256).clamp(1, resident as usize) as u32;
        let launch = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let values = x.slice(start..start + piece_len);
        let mut bins = all.slice_mut(launch_index * STRIDE..(launch_index + 1) * STRIDE);
        // SAFETY: the kernel's signature (kernels/residual.cu); `values`
        // holds piece_len values and starts 16-byte aligned (an
        // allocation's start plus a multiple of BINS_CHUNK floats), as the
        // kernel's float4 loads need; bins F32_FIELDS + 1 zeroed u64 (the
        // count last).
        unsafe {
            dev.stream
                .launch_builder(&bins_fn)
                .arg(&values)
                .arg(&len64)
                .arg(&mut bins)
                .launch(launch)
        }
        .map_err(driver("launch residual_abs_bins_f32"))?;
    }
    let all = dev.download(&all)?;
    let mut means = [0.0; N];
    let mut launches = all.chunks_exact(STRIDE);
    for (mean, pieces) in means.iter_mut().zip(&pieces) {
        let mut sum = AbsSumBins::new();
        for bins in launches.by_ref().take(pieces.len()) {
            sum.merge(
                &AbsSumBins::from_f32_bins(&bins[..F32_FIELDS], bins[F32_FIELDS])
                    .map_err(GpuError::Internal)?,
            );
        }
        *mean = sum.mean();
    }
    Ok(means)
}

/// One compensating product (`P1 = A' RB'` or `P2 = RA' B'`) as
/// `residual_combine` reads it.
pub(super) enum Product {
    /// The dense `m x n` int32 product of a GEMM.
    Dense(CudaSlice<i32>),
    /// The CSR of the reduced matrix (`A^r` by rows, or `B^r` by columns):
    /// `residual_combine` multiplies it by the dense residual itself.
    Csr {
        /// Where each row (column) starts in `idx` and `val`, and the end.
        ptr: CudaSlice<u32>,
        /// Column (row) indices, ascending within a row (column).
        idx: CudaSlice<u32>,
        /// The kept integers of `A_int` (`B_int`).
        val: CudaSlice<i8>,
    },
}

/// The reduction, the density switch and the two products: the reduced
/// matrices' CSR, or the dense products.
#[allow(clippy::type_complexity)]
pub(super) fn sparse(
    (dev, kind): (&Device, Int8Gemm),
    a_dev: &CudaSlice<f32>,
    b_dev: &CudaSlice<f32>,
    d_f: Option<&CudaSlice<f32>>,
    (qa, qb, qra, qrb): (&Quantized, &Quantized, &Quantized, &Quantized),
    (m, k, n, kp): (usize, usize, usize, usize),
    cfg: &RunConfig,
) -> Result<(Product, Product, Path, (f64, f64)), GpuError> {
    let (m64, k64, n64, kp64) = (m as u64, k as u64, n as u64, kp as u64);
    let mut row_means = dev.zeros::<f64>(m)?;
    let mut col_means = dev.zeros::<f64>(n)?;
    let rm = dev.function("residual_row_means")?;
    let cm = dev.function("residual_col_means")?;
    let count_cols = dev.function("residual_mask_count_cols")?;
    let count_rows = dev.function("residual_mask_count_rows")?;
    let threshold = cfg.reduction.threshold;
    let rule = match cfg.reduction.rule {
        ReduceRule::Mean => 0i32,
        ReduceRule::Rows => 1,
        ReduceRule::Signed => 2,
    };
    // The code's rule compares with (2M) mean_nnz|X|, exactly rounded
    // (exact_mean.rs): the device bins the significands per exponent field,
    // the host rounds the exact sum over the count once, so the limit is the
    // CPU model's bit for bit. (Until 2026-11-24 it was a sequential binary64
    // sum on the host, seconds per 16384^2 matrix on the H100 run.) The other
    // rules never read the limit and skip it.
    let (limit_a, limit_b) = if cfg.reduction.rule == ReduceRule::Mean {
        let [mean_a, mean_b] = device_nonzero_means(dev, [(a_dev, m * k), (b_dev, k * n)])?;
        ((2.0 * threshold) * mean_a, (2.0 * threshold) * mean_b)
    } else {
        (0.0, 0.0)
    };
    // A's row counts, then B's column counts: one buffer, read back in one copy.
    let mut counts = dev.zeros::<u32>(m + n)?;
    // B's columns in chunks of rows (kernels/residual.cu: residual_mask_count_cols).
    let column_chunks = ColumnChunks::new(k, n);
    let chunk_rows64 = column_chunks.rows as u64;
    // SAFETY: residual_mask_count_cols writes every (chunk, column) count.
    let mut chunk_counts_b = unsafe { dev.uninit::<u32>(column_chunks.chunks * n) }?;
    // SAFETY: signatures of the kernels; means and counts have one entry per
    // row (m) or column (n), d_f m x n, A m x k, B k x n.
    unsafe {
        // The means of |D_F| enter only eq. (14)'s readings (rules 1 and 2);
        // the code's rule compares with its global limit, so under it the two
        // passes over D_F are skipped (the buffers stay zero, never read).
        if cfg.reduction.rule != ReduceRule::Mean {
            let d_f = d_f.ok_or_else(|| {
                GpuError::Internal(
                    "rules 1 and 2 take the means of D_F, which was not formed".into(),
                )
            })?;
            dev.stream
                .launch_builder(&rm)
                .arg(d_f)
                .arg(&m64)
                .arg(&n64)
                .arg(&mut row_means)
                .launch(grid(m, 128))
                .map_err(driver("launch residual_row_means"))?;
            dev.stream
                .launch_builder(&cm)
                .arg(d_f)
                .arg(&m64)
                .arg(&n64)
                .arg(&mut col_means)
                .launch(grid(n, 128))
                .map_err(driver("launch residual_col_means"))?;
        }
        // A's rows: one warp per row (coalesced; kernels/residual.cu).
        dev.stream
            .launch_builder(&count_rows)
            .arg(a_dev)
            .arg(&m64)
            .arg(&k64)
            .arg(&row_means)
            .arg(&threshold)
            .arg(&limit_a)
            .arg(&rule)
            .arg(&mut counts.slice_mut(..m))
            .launch(grid(m * 32, 128))
            .map_err(driver("launch residual_mask_count_rows A"))?;
        dev.stream
            .launch_builder(&count_cols)
            .arg(b_dev)
            .arg(&k64)
            .arg(&n64)
            .arg(&col_means)
            .arg(&threshold)
            .arg(&limit_b)
            .arg(&rule)
            .arg(&chunk_rows64)
            .arg(&mut chunk_counts_b)
            .arg(&mut counts.slice_mut(m..))
            .launch(column_chunks.launch)
            .map_err(driver("launch residual_mask_count_cols B"))?;
    }
    // The CSR pointers (u32, as the kernels index): a count past u32 is refused.
    let scan = |c: &[u32]| -> Result<Vec<u32>, GpuError> {
        let mut out = Vec::with_capacity(c.len() + 1);
        let mut s = 0u32;
        out.push(0);
        for &v in c {
            s = s.checked_add(v).ok_or_else(|| {
                GpuError::Internal(
                    "a reduced matrix keeps more than 2^32 - 1 entries: beyond the \
                     device CSR's 32-bit indices"
                        .into(),
                )
            })?;
            out.push(s);
        }
        Ok(out)
    };
    let counts = dev.download(&counts)?;
    let (ptr_a, ptr_b) = (scan(&counts[..m])?, scan(&counts[m..])?);
    let (nnz_a, nnz_b) = (ptr_a[m] as usize, ptr_b[n] as usize);
    let densities = (nnz_a as f64 / (m * k) as f64, nnz_b as f64 / (k * n) as f64);
    let eta = cfg.reduction.eta;
    let (sparse_a, sparse_b) = (densities.0 < eta, densities.1 < eta);
    // Each reduced matrix sparser than eta gets its CSR (pointers uploaded,
    // entries filled; allocated only then: until 2026-11-27 both were
    // allocated and zeroed whatever the switch chose), the other its GEMM.
    let p1 = if sparse_a {
        let (ptr, mut idx, mut val) = csr_buffers(dev, &ptr_a)?;
        let fill_rows = dev.function("residual_mask_fill_rows")?;
        // SAFETY: the kernel's signature; A m x k, Aq m x kp, the CSR
        // buffers the scanned sizes.
        unsafe {
            dev.stream
                .launch_builder(&fill_rows)
                .arg(a_dev)
                .arg(&m64)
                .arg(&k64)
                .arg(&row_means)
                .arg(&threshold)
                .arg(&limit_a)
                .arg(&rule)
                .arg(qa.rows())
                .arg(&kp64)
                .arg(&ptr)
                .arg(&mut idx)
                .arg(&mut val)
                .launch(grid(m * 32, 128))
                .map_err(driver("launch residual_mask_fill_rows A"))?;
        }
        Product::Csr { ptr, idx, val }
    } else {
        Product::Dense(gemm(dev, kind, qa, qrb, (m, n, kp))?)
    };
    let p2 = if sparse_b {
        let (ptr, mut idx, mut val) = csr_buffers(dev, &ptr_b)?;
        let fill_cols = dev.function("residual_mask_fill_cols")?;
        // SAFETY: the kernel's signature; B and its integers k x n, the
        // chunk counts chunks x n, the CSR buffers the scanned sizes.
        unsafe {
            dev.stream
                .launch_builder(&fill_cols)
                .arg(b_dev)
                .arg(&k64)
                .arg(&n64)
                .arg(&col_means)
                .arg(&threshold)
                .arg(&limit_b)
                .arg(&rule)
                .arg(qb.rows())
                .arg(&ptr)
                .arg(&chunk_counts_b)
                .arg(&chunk_rows64)
                .arg(&mut idx)
                .arg(&mut val)
                .launch(column_chunks.launch)
                .map_err(driver("launch residual_mask_fill_cols B"))?;
        }
        Product::Csr { ptr, idx, val }
    } else {
        Product::Dense(gemm(dev, kind, qra, qb, (m, n, kp))?)
    };
    let path = match (sparse_a, sparse_b) {
        (true, true) => Path::Sparse,
        (false, false) => Path::Dense,
        _ => Path::Mixed,
    };
    Ok((p1, p2, path, densities))
}

/// A reduced matrix's CSR on the device for its fill kernel: the scanned
/// pointers uploaded, and index and value arrays of `ptr.last()` entries,
/// uninitialised.
#[allow(clippy::type_complexity)]
fn csr_buffers(
    dev: &Device,
    ptr: &[u32],
) -> Result<(CudaSlice<u32>, CudaSlice<u32>, CudaSlice<i8>), GpuError> {
    let nnz = ptr.last().map_or(0, |&p| p as usize);
    let d_ptr = dev.upload(ptr)?;
    // SAFETY: the fill kernel writes one entry per kept element with the
    // count kernel's predicate, so all `nnz` of them.
    let (idx, val) = unsafe { (dev.uninit::<u32>(nnz)?, dev.uninit::<i8>(nnz)?) };
    Ok((d_ptr, idx, val))
}

#[cfg(test)]
mod tests {
    use super::{BINS_CHUNK, ColumnChunks, bins_pieces};

    #[test]
    fn the_bins_pieces_cover_the_input_once_each_within_the_chunk() {
        assert_eq!(bins_pieces(0, 8), vec![(0, 0)]);
        assert_eq!(bins_pieces(8, 8), vec![(0, 8)]);
        for len in 1..40 {
            let pieces = bins_pieces(len, 8);
            assert_eq!(pieces.len(), len.div_ceil(8));
            let mut next = 0;
            for &(start, n) in &pieces {
                assert_eq!(start, next, "len {len}: pieces are consecutive");
                assert!((1..=8).contains(&n), "len {len}: piece of {n}");
                assert_eq!(start % 4, 0, "float4 alignment");
                next += n;
            }
            assert_eq!(next, len);
        }
        // The real chunk: one piece below 2^32 values (16 GiB of f32).
        assert_eq!(bins_pieces(16384 * 16384, BINS_CHUNK).len(), 1);
        assert_eq!(BINS_CHUNK % 4, 0);
    }

    /// The chunks cover every row exactly once (the last may be short, none
    /// empty), fit the grid's y limit, and give about 2^18 threads, or as many
    /// as the entries or 65535 chunks per column allow.
    #[test]
    fn column_chunks_cover_the_rows_once_within_the_grid() {
        for (rows, cols) in [
            (1, 1),
            (7, 3),
            (4096, 4096),
            (16384, 16384),
            (1_000_000, 1),
            (100, 1 << 20),
            (65_537, 2),
        ] {
            let c = ColumnChunks::new(rows, cols);
            assert!(
                c.chunks >= 1 && c.chunks <= 65535,
                "{rows}x{cols}: {}",
                c.chunks
            );
            assert!(c.chunks * c.rows >= rows, "{rows}x{cols}: rows uncovered");
            assert!(
                (c.chunks - 1) * c.rows < rows,
                "{rows}x{cols}: an empty chunk"
            );
            assert_eq!(c.launch.grid_dim.1 as usize, c.chunks);
            assert!(c.launch.grid_dim.0 as usize * 256 >= cols);
            let threads = c.chunks * cols;
            // Fewer only where the grid's 65535 chunks or the entries run out.
            assert!(
                threads >= (1 << 18).min(rows * cols).min(65535 * cols) / 2,
                "{rows}x{cols}: only {threads} threads"
            );
        }
        // 4096^2: 64 chunks of 64 rows; 16384^2: 16 chunks of 1024.
        let small = ColumnChunks::new(4096, 4096);
        assert_eq!((small.chunks, small.rows), (64, 64));
        let large = ColumnChunks::new(16384, 16384);
        assert_eq!((large.chunks, large.rows), (16, 1024));
    }
}
