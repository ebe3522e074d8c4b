//! `accessor-spmv`: `y := alpha A x + beta y` for a sparse `A` through the
//! memory accessor (Grützmacher et al. 2021, §4.4, ELL; CSR added here), in
//! the order of `kernels/accessor_blas.cu`:
//!
//! - **CSR** (the "vector" kernel): 32 lanes per row, lane `l` chains the
//!   row's entries `l, l + 32, ...`, then the warp tree; depth
//!   [`warp_dot_depth`]`(nnz_i)`. On the GPU each warp takes four rows at a
//!   time (`CSR_ROWS_PER_WARP`), each still over its own 32 lanes and tree.
//! - **CSR-stream** (Greathouse and Daga, SC 2014): one thread per row chains
//!   the row's entries in increasing position, ELL's order on CSR storage;
//!   depth `nnz_i`. On the GPU a block of 256 rows passes its entries through
//!   shared memory in chunks, which changes where they are read from, not
//!   the order.
//! - **ELL** (column-major slots): one thread per row chains its slots
//!   `k = 0, 1, ..., width - 1`, skipping padding; depth `nnz_i`. The paper's
//!   Ginkgo ELL kernel may use several threads per row; this kernel uses one,
//!   and the bound follows the kernel actually run.
//! - Then `alpha` and `beta` as in GEMV ([`blas_accumulation`]), and the store.
//!
//! Matrix values, `x` and `y` go through the accessor; column indices are
//! integers and are read exactly.

use super::arith::{Arith, to_arith};
use super::axpy::store_all;
use super::common::{
    self, abs_diff_up, abs_sum_up, blas_accumulation, blas_epilogue, element_bound,
    products_representation_up, require_stored, scaled_products_up, with_arith,
};
use super::gemv::{GEMV_INPUTS, no_store};
use super::order::{warp_dot, warp_dot_depth};
use super::sparse::{CsrMatrix, EllMatrix};
use super::storage::{Accessor, AccessorSpec, Stored, fma_exact};
use crate::error::{Error, Result};
use crate::io::Tensor;
use crate::kernels::BoundCheck;
use crate::kernels::{Inputs, Kernel, KernelInfo, KernelRun, ParamKind, ParamSpec, input};
use boundgate_verify::Result as VResult;
use boundgate_verify::bounds::accessor::Accumulation;
use boundgate_verify::bounds::directed::{add_up, mul_up};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::error::require_same_len;
use boundgate_verify::oracle::{ExactOp, Sparse, Spmv};
use serde::Serialize;
use serde_json::json;

/// The sparse format (and kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SparseFormat {
    /// CSR, 32 lanes per row (four rows per warp on the GPU).
    Csr,
    /// CSR, a thread per row: one FMA chain over the row's entries in order
    /// (the ELL order; on the GPU through shared memory, a block of 256 rows
    /// at a time).
    CsrStream,
    /// ELL, a thread per row.
    Ell,
}

impl SparseFormat {
    /// Every format (and kernel), in the `sparse` parameter's order.
    pub const ALL: [SparseFormat; 3] = [
        SparseFormat::Csr,
        SparseFormat::CsrStream,
        SparseFormat::Ell,
    ];

    /// The depth of a row with `nnz` entries: the most roundings on one
    /// product's path to the row's sum.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::spmv::SparseFormat;
    /// // A 27-point stencil row: CSR's 32 lanes and warp tree against one chain.
    /// assert_eq!(SparseFormat::Csr.row_depth(27), 6);
    /// assert_eq!(SparseFormat::Ell.row_depth(27), 27);
    /// assert_eq!(SparseFormat::CsrStream.row_depth(27), 27);
    /// ```
    pub fn row_depth(self, nnz: usize) -> u64 {
        match self {
            SparseFormat::Csr => warp_dot_depth(nnz),
            SparseFormat::Ell | SparseFormat::CsrStream => nnz as u64,
        }
    }

    /// The `sparse` parameter's word for this format.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::spmv::SparseFormat;
    /// assert_eq!(SparseFormat::CsrStream.name(), "csr_stream");
    /// assert_eq!(SparseFormat::from_name("csr_stream"), Some(SparseFormat::CsrStream));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            SparseFormat::Csr => "csr",
            SparseFormat::CsrStream => "csr_stream",
            SparseFormat::Ell => "ell",
        }
    }

    /// The format whose [`name`](SparseFormat::name) is `name`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::spmv::SparseFormat;
    /// assert_eq!(SparseFormat::from_name("ell"), Some(SparseFormat::Ell));
    /// assert_eq!(SparseFormat::from_name("coo"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<SparseFormat> {
        SparseFormat::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One FMA chain over a row's entries `(column, value)` in the order given,
/// from `+0`: `acc = fma(a_k, x_k, acc)`, the order of the ELL and CSR-stream
/// kernels (a thread per row).
fn row_chain<A: Arith>(entries: impl Iterator<Item = (usize, f64)>, xv: &[A]) -> A {
    entries.fold(A::ZERO, |acc, (c, v)| A::fma(A::of(v), xv[c], acc))
}

/// What one accessor SpMV computed.
#[derive(Clone, Debug)]
pub struct SpmvComputation {
    /// The accessors of the values of `A`, of `x` and of `y`.
    pub accessors: (Accessor, Accessor, Option<Accessor>),
    /// `A` with its values as read.
    pub a_read: CsrMatrix,
    /// `A`'s values, `x` and `y` as stored and read.
    pub stored: (Stored, Stored, Option<Stored>),
    /// The format.
    pub format: SparseFormat,
    /// `alpha`, `beta`.
    pub scalars: (f64, f64),
    /// Results before the store.
    pub before_store: Vec<f64>,
    /// The output.
    pub output: Vec<f64>,
    /// The accessor of the output.
    pub output_accessor: Option<Accessor>,
    /// Whether the FMA chains are free of underflow errors.
    pub exact_products: bool,
}

/// Runs SpMV through the accessor in the GPU order.
///
/// # Errors
/// Shape mismatches, scalars outside the arithmetic format, a missing `y`
/// with `beta != 0`, integer storage that cannot hold a value.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::spmv::{accessor_spmv, SparseFormat};
/// use boundgate::kernels::accessor::sparse::CsrMatrix;
/// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
/// use boundgate_verify::format::Format;
/// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
/// let a = CsrMatrix::from_dense(2, 2, &[2.0, 0.0, 1.0, 3.0]).unwrap();
/// let out = accessor_spmv(&spec, &a, SparseFormat::Ell, (1.0, 0.0), &[1.0, 1.0], None, true).unwrap();
/// assert_eq!(out.output, vec![2.0, 4.0]);
/// ```
pub fn accessor_spmv(
    spec: &AccessorSpec,
    a: &CsrMatrix,
    format: SparseFormat,
    (alpha, beta): (f64, f64),
    x: &[f64],
    y: Option<&[f64]>,
    store: bool,
) -> Result<SpmvComputation> {
    require_same_len("x and the columns of A", x.len(), a.cols())?;
    spec.arithmetic.require_values(&[alpha, beta])?;
    let y = if beta != 0.0 {
        let y = y.ok_or_else(|| Error::usage("beta != 0 needs the input y"))?;
        require_same_len("y and the rows of A", y.len(), a.rows())?;
        Some(y)
    } else {
        None
    };
    let (aa, ax) = (spec.for_data(a.values())?, spec.for_data(x)?);
    let ay = y.map(|y| spec.for_data(y)).transpose()?;
    let (sa, sx) = (aa.store(a.values())?, ax.store(x)?);
    let sy = match (&ay, y) {
        (Some(acc), Some(y)) => Some(acc.store(y)?),
        _ => None,
    };
    let a_read = a.with_values(sa.values.clone())?;
    let before_store: Vec<f64> = with_arith!(spec.arithmetic, A => {
        let xv: Vec<A> = to_arith(&sx.values);
        let sums: Vec<A> = match format {
            SparseFormat::Csr => (0..a.rows())
                .map(|i| {
                    let (cols, vals) = a_read.row(i);
                    warp_dot(cols.len(), |k| (A::of(vals[k]), xv[cols[k]]))
                })
                .collect(),
            // ELL's chain on the CSR row: the same entries in the same order
            // (EllMatrix::from_csr keeps each row's order), without the padding.
            SparseFormat::CsrStream => (0..a.rows())
                .map(|i| {
                    let (cols, vals) = a_read.row(i);
                    row_chain(cols.iter().copied().zip(vals.iter().copied()), &xv)
                })
                .collect(),
            SparseFormat::Ell => {
                let ell = EllMatrix::from_csr(&a_read);
                (0..a.rows())
                    .map(|i| row_chain((0..ell.width()).filter_map(|k| ell.slot(i, k)), &xv))
                    .collect()
            }
        };
        sums.iter()
            .enumerate()
            .map(|(i, &s)| {
                let y0 = sy.as_ref().map(|sy| sy.values[i]);
                blas_epilogue(alpha, beta, s, y0)
            })
            .collect()
    });
    let (output, output_accessor) = store_all(spec, &before_store, store)?;
    Ok(SpmvComputation {
        exact_products: fma_exact(&aa, &ax, spec.arithmetic),
        accessors: (aa, ax, ay),
        a_read,
        stored: (sa, sx, sy),
        format,
        scalars: (alpha, beta),
        before_store,
        output,
        output_accessor,
    })
}

impl SpmvComputation {
    fn check_stored(&self) -> VResult<()> {
        // With alpha = 0, A and x are not read (`blas_epilogue`).
        if self.scalars.0 != 0.0 {
            require_stored("a", &self.stored.0, self.accessors.0.spec().storage)?;
            require_stored("x", &self.stored.1, self.accessors.1.spec().storage)?;
        }
        if let (Some(s), Some(acc)) = (&self.stored.2, &self.accessors.2) {
            require_stored("y", s, acc.spec().storage)?;
        }
        Ok(())
    }

    fn accumulation(&self, i: usize) -> Accumulation {
        let (cols, vals) = self.a_read.row(i);
        let x = &self.stored.1.values;
        let s = abs_sum_up(cols.iter().zip(vals).map(|(&c, &v)| (v, x[c])));
        let y_abs = self.stored.2.as_ref().map_or(0.0, |sy| sy.values[i].abs());
        let chain_ops = if self.exact_products {
            0.0
        } else {
            cols.len() as f64
        };
        let (alpha, beta) = self.scalars;
        blas_accumulation(
            self.format.row_depth(cols.len()),
            chain_ops,
            alpha,
            beta,
            s,
            y_abs,
        )
    }

    /// Per-element rigorous bounds with respect to the exact result on `A`
    /// (`a`, the matrix as given), `x` and `y` as given.
    ///
    /// # Errors
    /// Hypotheses the bound needs: the stored values read back from the
    /// storage format, finite results when `store`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::spmv::{accessor_spmv, spmv_errors, SparseFormat};
    /// use boundgate::kernels::accessor::sparse::CsrMatrix;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::check::check;
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
    /// let a = CsrMatrix::from_dense(2, 3, &[0.1, 0.0, -2.7, 0.0, 3.3, 1e-3]).unwrap();
    /// let (x, y) = ([1.7, -0.3, 0.9], [0.2, -5.0]);
    /// for format in SparseFormat::ALL {
    ///     let out = accessor_spmv(&spec, &a, format, (1.5, -1.0), &x, Some(&y), true).unwrap();
    ///     let errors = spmv_errors(&a, (1.5, -1.0), &x, Some(&y), &out.output).unwrap();
    ///     let bounds = out.rigorous(&a, &x, Some(&y), true);
    ///     assert!(check(&errors, bounds).unwrap().is_pass(), "{}", format.name());
    /// }
    /// ```
    pub fn rigorous(
        &self,
        a: &CsrMatrix,
        x: &[f64],
        y: Option<&[f64]>,
        store: bool,
    ) -> VResult<ElementBounds> {
        self.check_stored()?;
        let arithmetic = self.accessors.0.arithmetic();
        let model = self.output_accessor.map(|acc| acc.store_model());
        let (alpha, beta) = self.scalars;
        let xs = &self.stored.1.values;
        let bounds: Vec<_> = (0..a.rows())
            .map(|i| {
                let (cols, given) = a.row(i);
                let (_, read) = self.a_read.row(i);
                let mut representation = scaled_products_up(alpha, || {
                    products_representation_up(
                        given.iter().copied().zip(read.iter().copied()),
                        cols.iter().map(|&c| (x[c], xs[c])),
                    )
                });
                if let (Some(y), Some(sy)) = (y, &self.stored.2) {
                    representation = add_up(
                        representation,
                        mul_up(beta.abs(), abs_diff_up(y[i], sy.values[i])),
                    );
                }
                let store = if store {
                    Some((model.as_ref().ok_or_else(no_store)?, self.before_store[i]))
                } else {
                    None
                };
                element_bound(arithmetic, &self.accumulation(i), representation, store)
            })
            .collect();
        ElementBounds::collect(bounds)
    }

    /// Per-element published bounds (Higham 2002 (3.5), `n` = depth of the row).
    ///
    /// # Errors
    /// As [`SpmvComputation::rigorous`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::spmv::{accessor_spmv, SparseFormat};
    /// use boundgate::kernels::accessor::sparse::CsrMatrix;
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP32).unwrap();
    /// let a = CsrMatrix::from_dense(1, 40, &[1.0; 40]).unwrap();
    /// let x = [1.0; 40];
    /// // The same row bounded by each order's depth: CSR's tree is shallower.
    /// let bound = |f| accessor_spmv(&spec, &a, f, (1.0, 0.0), &x, None, false)
    ///     .unwrap().published(false).unwrap().values()[0];
    /// assert!(bound(SparseFormat::Csr) < bound(SparseFormat::Ell));
    /// ```
    pub fn published(&self, store: bool) -> VResult<ElementBounds> {
        self.check_stored()?;
        common::published_rows(
            (
                self.accessors.0.arithmetic(),
                self.accessors.0.storage_write(),
            ),
            store,
            &self.before_store,
            |i| self.accumulation(i),
        )
    }
}

/// The errors of `computed` against the exact `alpha A x + beta y`.
///
/// # Errors
/// Shape mismatches.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::spmv::spmv_errors;
/// use boundgate::kernels::accessor::sparse::CsrMatrix;
/// use boundgate_verify::oracle::ErrorMeasure;
/// let a = CsrMatrix::from_dense(1, 2, &[1.0, 1.0]).unwrap();
/// // 1 + 2^-60 is not a binary64 number: 1.0 is off by 2^-60.
/// let e = spmv_errors(&a, (1.0, 0.0), &[1.0, 2f64.powi(-60)], None, &[1.0]).unwrap();
/// let ErrorMeasure::Finite { absolute_up, .. } = e[0] else { panic!() };
/// assert_eq!(absolute_up, 2f64.powi(-60));
/// ```
pub fn spmv_errors(
    a: &CsrMatrix,
    (alpha, beta): (f64, f64),
    x: &[f64],
    y: Option<&[f64]>,
    computed: &[f64],
) -> Result<Vec<boundgate_verify::oracle::ErrorMeasure>> {
    let y = if beta != 0.0 { y } else { None };
    Ok(Spmv::new(alpha, Sparse::Csr(a.view()), x, beta, y)?.errors(computed)?)
}

/// The `sparse` parameter.
pub const SPARSE: ParamSpec = ParamSpec {
    key: "sparse",
    default: "csr",
    kind: ParamKind::Choice(&["csr", "csr_stream", "ell"]),
    help: "sparse format of A (its nonzeros): csr (32 lanes per row, then a warp tree), csr_stream (CSR, a thread per row, one chain in order) or ell (a thread per row)",
};

const PARAMS: [ParamSpec; 12] = common::params_with_scalars(SPARSE);

const INFO: KernelInfo = KernelInfo {
    name: "accessor-spmv",
    summary: "y := alpha A x + beta y for the nonzeros of A (CSR: 32 lanes per row and a warp tree; CSR-stream and ELL: a thread per row) through the memory accessor",
    inputs: GEMV_INPUTS,
    params: &PARAMS,
    non_finite: super::common::NON_FINITE,
};

/// `accessor-spmv`.
pub struct AccessorSpmv;

impl Kernel for AccessorSpmv {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &crate::kernels::Params) -> Result<KernelRun> {
        let spec = common::spec(params)?;
        let store = params.bool("store")?;
        let alpha = common::scalar(params, "alpha", spec.arithmetic)?;
        let beta = common::scalar(params, "beta", spec.arithmetic)?;
        let sparse = params.text("sparse")?;
        let format = SparseFormat::from_name(sparse)
            .ok_or_else(|| Error::usage(format!("sparse={sparse}: not csr, csr_stream or ell")))?;
        let a_t = input(inputs, &GEMV_INPUTS[0])?;
        let (rows, cols) = a_t.dims2().expect("checked 2-D");
        let a = CsrMatrix::from_dense(rows, cols, a_t.data())?;
        let x = input(inputs, &GEMV_INPUTS[1])?.data();
        let y = if beta != 0.0 {
            Some(input(inputs, &GEMV_INPUTS[2])?.data())
        } else {
            None
        };
        let c = accessor_spmv(&spec, &a, format, (alpha, beta), x, y, store)?;
        let ran_on = super::device::run(
            params,
            &spec,
            super::device::Launch::Spmv {
                a: &a,
                format,
                scalars: (alpha, beta),
                x,
                y,
            },
            super::device::ModelResults {
                before_store: &c.before_store,
                stored: store.then_some(&c.output[..]),
                inverses: &[],
            },
        )?;
        let stored_y = c.stored.2.as_ref().map(|s| s.values.as_slice());
        let details = json!({
            "order": match format {
                SparseFormat::Csr => "CSR: 32 lanes per row, FMA chains over entries l, l + 32, ..., warp tree (kernels/accessor_blas.cu)",
                SparseFormat::CsrStream => "CSR-stream: a thread per row, one FMA chain over its entries in order; on the GPU through shared memory in block-wide chunks (kernels/accessor_blas.cu)",
                SparseFormat::Ell => "ELL (column-major slots): a thread per row, one FMA chain over its slots (kernels/accessor_blas.cu)",
            },
            "accessor": spec,
            "format": format,
            "nnz": a.nnz(),
            "max_row": a.max_row_len(),
            "alpha": alpha,
            "beta": beta,
            "exact_products": c.exact_products,
            "store": store,
            "ran_on": ran_on.describe(),
        });
        Ok(KernelRun {
            errors_as_given: spmv_errors(&a, (alpha, beta), x, y, &c.output)?,
            errors_as_stored: spmv_errors(
                &c.a_read,
                (alpha, beta),
                &c.stored.1.values,
                stored_y,
                &c.output,
            )?,
            rigorous: BoundCheck::rigorous(c.rigorous(&a, x, y, store)),
            others: vec![BoundCheck::published(
                if store {
                    "published: Higham 2002 (3.5), n = row depth, + u_S|y^| for the store"
                } else {
                    "published: Higham 2002 (3.5), n = row depth"
                },
                c.published(store),
            )],
            output: Tensor::vector(c.output),
            details,
        })
    }

    fn audit_shapes(&self, size: usize) -> Vec<(&'static str, Vec<usize>)> {
        vec![
            ("a", vec![size, size]),
            ("x", vec![size]),
            ("y", vec![size]),
        ]
    }
}
