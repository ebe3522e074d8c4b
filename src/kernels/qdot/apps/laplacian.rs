//! A random graph Laplacian (the APM problem of the paper's §4.3, which does
//! not say how its graphs were drawn): `n` vertices, each joined to `k`
//! others chosen uniformly (seeded), edges undirected and unweighted, no loops;
//! `L = D - A`. Its largest eigenvalue is near the largest degree plus one.

use crate::sparse::CsrMatrix;
use boundgate_verify::{Result as VResult, VerifyError};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The Laplacian of a random graph.
///
/// # Example
/// ```
/// use boundgate::kernels::qdot::apps::laplacian::random_laplacian;
/// let l = random_laplacian(100, 3, 1).unwrap();
/// let mut y = vec![0.0; 100];
/// l.spmv(&vec![1.0; 100], &mut y); // rows sum to zero
/// assert!(y.iter().all(|v| *v == 0.0));
/// assert!(random_laplacian(1, 3, 1).is_err());
/// ```
pub fn random_laplacian(n: usize, k: usize, seed: u64) -> VResult<CsrMatrix> {
    if n < 2 || k == 0 || k >= n {
        return Err(VerifyError::invalid(
            "laplacian",
            format!("n = {n}, k = {k}"),
            "needs n >= 2 and 1 <= k < n",
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut adjacency: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for _ in 0..k {
            let mut j = rng.random_range(0..n - 1);
            if j >= i {
                j += 1;
            }
            adjacency[i].push(j);
            adjacency[j].push(i);
        }
    }
    let mut row_ptr = vec![0];
    let mut col_idx = Vec::new();
    let mut values = Vec::new();
    for (i, neighbours) in adjacency.iter_mut().enumerate() {
        neighbours.sort_unstable();
        neighbours.dedup();
        let degree = neighbours.len();
        let mut placed = false;
        for &j in neighbours.iter() {
            if !placed && j > i {
                col_idx.push(i);
                values.push(degree as f64);
                placed = true;
            }
            col_idx.push(j);
            values.push(-1.0);
        }
        if !placed {
            col_idx.push(i);
            values.push(degree as f64);
        }
        row_ptr.push(col_idx.len());
    }
    CsrMatrix::new(n, n, row_ptr, col_idx, values)
}
