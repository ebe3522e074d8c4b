//! `accessor-gemv`: `y := alpha op(A) x + beta y` through the memory accessor
//! (Grützmacher et al. 2021, §4.1; the paper uses `alpha = 1`, `beta = 0`), in
//! the order of `kernels/accessor_blas.cu`:
//!
//! - `op(A) = A` (A row-major, `m x n`): one warp per row ([`warp_dot`]: lane
//!   `l` chains the columns `l, l + 32, ...`, then the warp tree), depth
//!   [`warp_dot_depth`]`(n)`.
//! - `op(A) = A^T`: a block of 32 x 32 threads per 32 columns; thread `(c, g)`
//!   chains the rows `g, g + 32, ...` of column `c` (coalesced reads), then a
//!   tree over the 32 groups (`v[g] += v[g + s]`, `s = 16, 8, 4, 2, 1`), depth
//!   `ceil(m / 32) + ceil(log2 min(m, 32))` ([`transposed_depth`]).
//! - Then `y_i = fl(alpha s_i)` if `beta = 0`, else `fma(alpha, s_i, fl(beta y_i))`;
//!   with `alpha = 0` the sum is not used, as in BLAS (`fl(beta y_i)`, or +0):
//!   [`common::blas_epilogue`]. Then the store.
//!
//! Bounds per element: the accumulation of the terms `alpha a_ij x_j`
//! (`depth + 1` roundings when `alpha != 1` or `beta != 0`) and `beta y_i` (2),
//! with eta weight `|alpha| n` for inexact products plus 2 for the final
//! operations; the representation error `|alpha| sum_j |a~ x~ - a x| + |beta| |y~ - y|`;
//! the store.

use super::arith::{Arith, to_arith};
use super::axpy::store_all;
use super::common::{
    self, abs_diff_up, abs_sum_up, blas_accumulation, blas_epilogue, element_bound,
    products_representation_up, require_stored, scaled_products_up, with_arith,
};
use super::order::{WARP, warp_dot, warp_dot_depth};
use super::storage::{Accessor, AccessorSpec, Stored, fma_exact};
use crate::error::{Error, Result};
use crate::io::Tensor;
use crate::kernels::BoundCheck;
use crate::kernels::{
    InputSpec, Inputs, Kernel, KernelInfo, KernelRun, ParamKind, ParamSpec, Shape, input,
};
use boundgate_verify::Result as VResult;
use boundgate_verify::bounds::accessor::{Accumulation, padded_tree_depth};
use boundgate_verify::bounds::directed::{add_up, mul_up};
use boundgate_verify::check::ElementBounds;
use boundgate_verify::error::require_same_len;
use boundgate_verify::oracle::{ExactOp, Gemv, Matrix, Transpose};
use serde_json::json;

/// Row groups of the transposed kernel (threads per column; the kernel's
/// `blockDim.y`, a power of two of at most 32, its shared memory's size).
/// 8 until 2026-11-26: 32 puts four times the threads on a 4096-column
/// matrix, whose 128 blocks of 256 threads left one small block per SM of
/// the H100 (gemv^T at 29 % of copy; docs/gpu/2026-11-26-h100.md).
pub const TRANSPOSED_GROUPS: usize = 32;
const _: () = assert!(TRANSPOSED_GROUPS.is_power_of_two() && TRANSPOSED_GROUPS <= 32);

/// The depth of the transposed kernel's sum over `m` rows.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::gemv::transposed_depth;
/// assert_eq!(transposed_depth(1000), 32 + 5);
/// assert_eq!(transposed_depth(3), 1 + 2);
/// ```
pub fn transposed_depth(m: usize) -> u64 {
    m.div_ceil(TRANSPOSED_GROUPS) as u64 + padded_tree_depth(m.min(TRANSPOSED_GROUPS))
}

/// The BLAS scalars and the operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemvOp {
    /// `alpha`.
    pub alpha: f64,
    /// `beta` (`y` is read only when nonzero).
    pub beta: f64,
    /// `op(A)`.
    pub trans: Transpose,
}

impl GemvOp {
    /// `y := A x`.
    pub const PLAIN: GemvOp = GemvOp {
        alpha: 1.0,
        beta: 0.0,
        trans: Transpose::No,
    };
}

/// What one accessor GEMV computed.
#[derive(Clone, Debug)]
pub struct GemvComputation {
    /// The accessors of `A`, `x` and `y`.
    pub accessors: (Accessor, Accessor, Option<Accessor>),
    /// `A`, `x` and `y` as stored and read.
    pub stored: (Stored, Stored, Option<Stored>),
    /// Rows and columns of `A`.
    pub shape: (usize, usize),
    /// The operation.
    pub op: GemvOp,
    /// The results in the arithmetic format, before the store.
    pub before_store: Vec<f64>,
    /// The output.
    pub output: Vec<f64>,
    /// The accessor of the output.
    pub output_accessor: Option<Accessor>,
    /// The depth of each output's sum `s_i` (before alpha and beta).
    pub sum_depth: u64,
    /// Whether the FMA chains are free of underflow errors.
    pub exact_products: bool,
}

/// Runs GEMV through the accessor in the GPU order.
///
/// # Errors
/// Shape mismatches, `alpha`/`beta` outside the arithmetic format, a missing
/// `y` with `beta != 0`, integer storage that cannot hold a value.
///
/// # Example
/// ```
/// use boundgate::kernels::accessor::gemv::{accessor_gemv, GemvOp};
/// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
/// use boundgate_verify::format::Format;
/// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP64).unwrap();
/// let a = [1.0, 2.0, 3.0, 4.0]; // [[1, 2], [3, 4]]
/// let out = accessor_gemv(&spec, GemvOp::PLAIN, &a, (2, 2), &[1.0, 1.0], None, true).unwrap();
/// assert_eq!(out.output, vec![3.0, 7.0]);
/// ```
pub fn accessor_gemv(
    spec: &AccessorSpec,
    op: GemvOp,
    a: &[f64],
    (rows, cols): (usize, usize),
    x: &[f64],
    y: Option<&[f64]>,
    store: bool,
) -> Result<GemvComputation> {
    require_same_len("A and rows x cols", a.len(), rows * cols)?;
    let (inner, outer) = match op.trans {
        Transpose::No => (cols, rows),
        Transpose::Yes => (rows, cols),
    };
    require_same_len("x and the columns of op(A)", x.len(), inner)?;
    spec.arithmetic.require_values(&[op.alpha, op.beta])?;
    let y = if op.beta != 0.0 {
        let y = y.ok_or_else(|| Error::usage("beta != 0 needs the input y"))?;
        require_same_len("y and the rows of op(A)", y.len(), outer)?;
        Some(y)
    } else {
        None
    };
    let (aa, ax) = (spec.for_data(a)?, spec.for_data(x)?);
    let ay = y.map(|y| spec.for_data(y)).transpose()?;
    let (sa, sx) = (aa.store(a)?, ax.store(x)?);
    let sy = match (&ay, y) {
        (Some(acc), Some(y)) => Some(acc.store(y)?),
        _ => None,
    };
    let before_store: Vec<f64> = with_arith!(spec.arithmetic, A => {
        let av: Vec<A> = to_arith(&sa.values);
        let xv: Vec<A> = to_arith(&sx.values);
        let sums: Vec<A> = match op.trans {
            Transpose::No => (0..rows)
                .map(|i| {
                    let row = &av[i * cols..(i + 1) * cols];
                    warp_dot(cols, |k| (row[k], xv[k]))
                })
                .collect(),
            Transpose::Yes => transposed_sums(&av, rows, cols, &xv),
        };
        sums.iter()
            .enumerate()
            .map(|(i, &s)| {
                let y0 = sy.as_ref().map(|sy| sy.values[i]);
                blas_epilogue(op.alpha, op.beta, s, y0)
            })
            .collect()
    });
    let (output, output_accessor) = store_all(spec, &before_store, store)?;
    let sum_depth = match op.trans {
        Transpose::No => warp_dot_depth(cols),
        Transpose::Yes => transposed_depth(rows),
    };
    Ok(GemvComputation {
        exact_products: fma_exact(&aa, &ax, spec.arithmetic),
        accessors: (aa, ax, ay),
        stored: (sa, sx, sy),
        shape: (rows, cols),
        op,
        before_store,
        output,
        output_accessor,
        sum_depth,
    })
}

/// The transposed kernel's sums: column `j` of `A^T x`, groups of rows, tree.
fn transposed_sums<A: Arith>(a: &[A], rows: usize, cols: usize, x: &[A]) -> Vec<A> {
    let mut groups = vec![[A::ZERO; TRANSPOSED_GROUPS]; cols];
    for i in 0..rows {
        let g = i % TRANSPOSED_GROUPS;
        let xi = x[i];
        for (j, acc) in groups.iter_mut().enumerate() {
            acc[g] = A::fma(a[i * cols + j], xi, acc[g]);
        }
    }
    groups
        .into_iter()
        .map(|mut v| {
            let mut s = TRANSPOSED_GROUPS / 2;
            while s > 0 {
                for g in 0..s {
                    v[g] = A::add(v[g], v[g + s]);
                }
                s /= 2;
            }
            v[0]
        })
        .collect()
}

impl GemvComputation {
    /// Row `i` of `op(A)` paired with `x`, over (given, stored) values.
    fn terms<'s>(
        &'s self,
        i: usize,
        a: &'s [f64],
        x: &'s [f64],
    ) -> impl Iterator<Item = ((f64, f64), (f64, f64))> + 's {
        let (rows, cols) = self.shape;
        let (sa, sx) = (&self.stored.0.values, &self.stored.1.values);
        let (len, index): (usize, Box<dyn Fn(usize) -> usize>) = match self.op.trans {
            Transpose::No => (cols, Box::new(move |k| i * cols + k)),
            Transpose::Yes => (rows, Box::new(move |k| k * cols + i)),
        };
        (0..len).map(move |k| ((a[index(k)], sa[index(k)]), (x[k], sx[k])))
    }

    fn check_stored(&self) -> VResult<()> {
        // With alpha = 0, A and x are not read (`blas_epilogue`).
        if self.op.alpha != 0.0 {
            require_stored("a", &self.stored.0, self.accessors.0.spec().storage)?;
            require_stored("x", &self.stored.1, self.accessors.1.spec().storage)?;
        }
        if let (Some(s), Some(acc)) = (&self.stored.2, &self.accessors.2) {
            require_stored("y", s, acc.spec().storage)?;
        }
        Ok(())
    }

    fn accumulation(&self, i: usize, a: &[f64], x: &[f64]) -> Accumulation {
        let op = self.op;
        let s = abs_sum_up(self.terms(i, a, x).map(|((_, ar), (_, xr))| (ar, xr)));
        let y_abs = self.stored.2.as_ref().map_or(0.0, |sy| sy.values[i].abs());
        let inner = match op.trans {
            Transpose::No => self.shape.1,
            Transpose::Yes => self.shape.0,
        };
        let chain_ops = if self.exact_products {
            0.0
        } else {
            inner as f64
        };
        blas_accumulation(self.sum_depth, chain_ops, op.alpha, op.beta, s, y_abs)
    }

    /// Per-element rigorous bounds with respect to the exact result on the
    /// inputs as given (`y` as given when `beta != 0`).
    ///
    /// # Errors
    /// Hypotheses the bound needs: the stored values read back from the
    /// storage format, finite results when `store`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gemv::{accessor_gemv, GemvOp};
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::check::check;
    /// use boundgate_verify::format::Format;
    /// use boundgate_verify::oracle;
    /// let spec = AccessorSpec::new(StorageKind::Fp16, Format::FP32).unwrap();
    /// let a = [0.3, -1.7, 2.2, 0.01, 5.5, -0.9]; // 2 x 3, row-major
    /// let x = [1.1, 0.2, -3.3];
    /// let out = accessor_gemv(&spec, GemvOp::PLAIN, &a, (2, 3), &x, None, true).unwrap();
    /// // Each row's exact dot against the computed element.
    /// let errors: Vec<_> = (0..2)
    ///     .map(|i| oracle::dot(&a[3 * i..3 * i + 3], &x).unwrap().error_of(out.output[i]))
    ///     .collect();
    /// assert!(check(&errors, out.rigorous(&a, &x, None, true)).unwrap().is_pass());
    /// ```
    pub fn rigorous(
        &self,
        a: &[f64],
        x: &[f64],
        y: Option<&[f64]>,
        store: bool,
    ) -> VResult<ElementBounds> {
        self.check_stored()?;
        let arithmetic = self.accessors.0.arithmetic();
        let model = self.output_accessor.map(|acc| acc.store_model());
        let bounds: Vec<_> = (0..self.before_store.len())
            .map(|i| {
                let mut representation = scaled_products_up(self.op.alpha, || {
                    products_representation_up(
                        self.terms(i, a, x).map(|(ag, _)| ag),
                        self.terms(i, a, x).map(|(_, xg)| xg),
                    )
                });
                if let (Some(y), Some(sy)) = (y, &self.stored.2) {
                    representation = add_up(
                        representation,
                        mul_up(self.op.beta.abs(), abs_diff_up(y[i], sy.values[i])),
                    );
                }
                let store = if store {
                    let m = model.as_ref().ok_or_else(no_store)?;
                    Some((m, self.before_store[i]))
                } else {
                    None
                };
                element_bound(
                    arithmetic,
                    &self.accumulation(i, a, x),
                    representation,
                    store,
                )
            })
            .collect();
        ElementBounds::collect(bounds)
    }

    /// Per-element published bounds (Higham 2002 (3.5), `n` = depth; the
    /// store as one more first-order rounding) on the stored values.
    ///
    /// # Errors
    /// As [`GemvComputation::rigorous`].
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::accessor::gemv::{accessor_gemv, GemvOp};
    /// use boundgate::kernels::accessor::storage::{AccessorSpec, StorageKind};
    /// use boundgate_verify::format::Format;
    /// let spec = AccessorSpec::new(StorageKind::Fp32, Format::FP32).unwrap();
    /// let a = [1.0, 2.0, 0.0, 0.0]; // [[1, 2], [0, 0]]
    /// let out = accessor_gemv(&spec, GemvOp::PLAIN, &a, (2, 2), &[1.0, 1.0], None, false).unwrap();
    /// let b = out.published(false).unwrap();
    /// // Row 0: a few u_32 times |1| + |2|; row 1 sums zeros exactly.
    /// assert!(b.values()[0] > 3.0 * 2f64.powi(-24) && b.values()[0] < 1e-5);
    /// assert_eq!(b.values()[1], 0.0);
    /// ```
    pub fn published(&self, store: bool) -> VResult<ElementBounds> {
        self.check_stored()?;
        let (sa, sx) = (&self.stored.0.values, &self.stored.1.values);
        common::published_rows(
            (
                self.accessors.0.arithmetic(),
                self.accessors.0.storage_write(),
            ),
            store,
            &self.before_store,
            |i| self.accumulation(i, sa, sx),
        )
    }
}

pub(crate) fn no_store() -> boundgate_verify::VerifyError {
    boundgate_verify::VerifyError::HypothesisNotMet {
        source_ref: "accessor store".into(),
        hypothesis: "finite results to store".into(),
        detail: "a result is NaN or infinite".into(),
    }
}

/// The inputs of `accessor-gemv`.
pub const GEMV_INPUTS: &[InputSpec] = &[
    InputSpec {
        name: "a",
        shape: Shape::Matrix,
        help: "the matrix A (m x n, row-major)",
    },
    InputSpec {
        name: "x",
        shape: Shape::Vector,
        help: "the vector x (n, or m when transposed)",
    },
    InputSpec {
        name: "y",
        shape: Shape::Vector,
        help: "the initial y (m, or n when transposed); read only when beta != 0",
    },
];

/// The `trans` parameter.
pub const TRANS: ParamSpec = ParamSpec {
    key: "trans",
    default: "false",
    kind: ParamKind::Bool,
    help: "true: y := alpha A^T x + beta y",
};

const PARAMS: [ParamSpec; 12] = common::params_with_scalars(TRANS);

const INFO: KernelInfo = KernelInfo {
    name: "accessor-gemv",
    summary: "y := alpha op(A) x + beta y through the memory accessor; GPU order: a warp per row (or 32 row groups per column, transposed), FMA chains and trees",
    inputs: GEMV_INPUTS,
    params: &PARAMS,
    non_finite: super::common::NON_FINITE,
};

/// `accessor-gemv`.
pub struct AccessorGemv;

impl Kernel for AccessorGemv {
    fn info(&self) -> &'static KernelInfo {
        &INFO
    }

    fn run(&self, inputs: &Inputs, params: &crate::kernels::Params) -> Result<KernelRun> {
        let spec = common::spec(params)?;
        let store = params.bool("store")?;
        let op = GemvOp {
            alpha: common::scalar(params, "alpha", spec.arithmetic)?,
            beta: common::scalar(params, "beta", spec.arithmetic)?,
            trans: if params.bool("trans")? {
                Transpose::Yes
            } else {
                Transpose::No
            },
        };
        let a_t = input(inputs, &GEMV_INPUTS[0])?;
        let (rows, cols) = a_t.dims2().expect("checked 2-D");
        let x = input(inputs, &GEMV_INPUTS[1])?.data();
        let y = if op.beta != 0.0 {
            Some(input(inputs, &GEMV_INPUTS[2])?.data())
        } else {
            None
        };
        let a = a_t.data();
        let c = accessor_gemv(&spec, op, a, (rows, cols), x, y, store)?;
        let ran_on = super::device::run(
            params,
            &spec,
            super::device::Launch::Gemv {
                op,
                a,
                shape: (rows, cols),
                x,
                y,
            },
            super::device::ModelResults {
                before_store: &c.before_store,
                stored: store.then_some(&c.output[..]),
                inverses: &[],
            },
        )?;
        let given = Gemv::new(
            op.alpha,
            Matrix::new(rows, cols, a)?,
            op.trans,
            x,
            op.beta,
            y,
        )?;
        let stored_y = c.stored.2.as_ref().map(|s| s.values.as_slice());
        let stored = Gemv::new(
            op.alpha,
            Matrix::new(rows, cols, &c.stored.0.values)?,
            op.trans,
            &c.stored.1.values,
            op.beta,
            stored_y,
        )?;
        let details = json!({
            "order": match op.trans {
                Transpose::No => format!("a warp per row: FMA chains over columns l, l + {WARP}, ..., warp tree (kernels/accessor_blas.cu)"),
                Transpose::Yes => format!("{TRANSPOSED_GROUPS} row groups per column: FMA chains, tree over the groups (kernels/accessor_blas.cu)"),
            },
            "accessor": spec,
            "alpha": op.alpha,
            "beta": op.beta,
            "trans": op.trans == Transpose::Yes,
            "sum_depth": c.sum_depth,
            "exact_products": c.exact_products,
            "scales": [c.accessors.0.scale(), c.accessors.1.scale()],
            "store": store,
            "ran_on": ran_on.describe(),
        });
        Ok(KernelRun {
            errors_as_given: given.errors(&c.output)?,
            errors_as_stored: stored.errors(&c.output)?,
            rigorous: BoundCheck::rigorous(c.rigorous(a, x, y, store)),
            others: vec![BoundCheck::published(
                if store {
                    "published: Higham 2002 (3.5), n = depth, + u_S|y^| for the store"
                } else {
                    "published: Higham 2002 (3.5), n = depth"
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
