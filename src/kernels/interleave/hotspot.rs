//! HotSpot3D (Rodinia 3.1; Che et al., IISWC 2009), the thesis's case study
//! (Freytag 2023, §3.4 and §5.2.3): the thermal stencil, its constants, its
//! inputs, and the state of one run in each kernel version.
//!
//! # The update rule (Rodinia `cuda/hotspot3D/3D.cu` and `opt1.cu`)
//!
//! With `dx = chip_height / ny`, `dy = chip_width / nx`, `dz = t_chip / nz`:
//! `Cap = FACTOR_CHIP SPEC_HEAT_SI t_chip dx dy`,
//! `Rx = dy / (2 K_SI t_chip dx)`, `Ry = dx / (2 K_SI t_chip dy)`,
//! `Rz = dz / (K_SI dx dy)`, `max_slope = MAX_PD / (FACTOR_CHIP t_chip SPEC_HEAT_SI)`,
//! `dt = PRECISION / max_slope`, `sdc = dt / Cap` (`stepDivCap`),
//! `ce = cw = sdc / Rx`, `cn = cs = sdc / Ry`, `ct = cb = sdc / Rz`,
//! `cc = 1 - (2 ce + 2 cn + 3 ct)`, `amb_temp = 80`, and one iteration is
//!
//! `T'[c] = cc T[c] + cw T[W] + ce T[E] + cs T[S] + cn T[N] + cb T[B] + ct T[T] + sdc P[c] + ct amb_temp`
//!
//! where a neighbour outside the grid is the cell itself (`W = c` at `x = 0`,
//! and so on). The weights of the state sum to `1 - ct`.
//!
//! Rodinia computes the constants in `float`; this crate computes them in
//! binary64 (the ground truth's coefficients) and rounds them to each
//! version's format (binary32, then binary16 for `half`, as a half kernel
//! converts its float parameters). The order of operations is fixed in
//! [`super::stencil`] and in `kernels/hotspot3d.cu`.
//!
//! # Inputs
//!
//! Rodinia reads a temperature and a power file of floats. Those files are not
//! available here, so [`synthetic_inputs`] generates a deterministic
//! Rodinia-like pair (binary32 values); [`HotSpot3D::new`] takes any pair, and
//! [`read_rodinia_text`] reads Rodinia's own text files.

use super::error::{InterleaveError, Result, require_finite};
use super::fp16::round16;
use super::grid::Grid3;
use super::version::Version;
use boundgate_verify::format::Format;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// Rodinia's `MAX_PD` (maximum power density), W/m^3.
pub const MAX_PD: f64 = 3.0e6;
/// Rodinia's `PRECISION`: required precision in degrees.
pub const PRECISION: f64 = 0.001;
/// Rodinia's `SPEC_HEAT_SI`: specific heat of silicon.
pub const SPEC_HEAT_SI: f64 = 1.75e6;
/// Rodinia's `K_SI`: thermal conductivity of silicon.
pub const K_SI: f64 = 100.0;
/// Rodinia's `FACTOR_CHIP`: capacitance fitting factor.
pub const FACTOR_CHIP: f64 = 0.5;
/// Rodinia's `t_chip`: chip thickness (m).
pub const T_CHIP: f64 = 0.0005;
/// Rodinia's `chip_height` (m).
pub const CHIP_HEIGHT: f64 = 0.016;
/// Rodinia's `chip_width` (m).
pub const CHIP_WIDTH: f64 = 0.016;
/// Rodinia's `amb_temp`: ambient temperature.
pub const AMB_TEMP: f64 = 80.0;

/// The stencil's coefficients in one format (values carried as `T`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients<T> {
    /// Weight of the cell itself.
    pub cc: T,
    /// West (x - 1).
    pub cw: T,
    /// East (x + 1).
    pub ce: T,
    /// South (y + 1).
    pub cs: T,
    /// North (y - 1).
    pub cn: T,
    /// Bottom (z - 1).
    pub cb: T,
    /// Top (z + 1), also the weight of the ambient temperature.
    pub ct: T,
    /// `stepDivCap`, the weight of the power.
    pub sdc: T,
    /// The ambient temperature.
    pub amb: T,
}

impl Coefficients<f64> {
    /// Rodinia's coefficients for a grid, evaluated in binary64.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::Coefficients};
    /// let k = Coefficients::rodinia(Grid3::new(512, 512, 8).unwrap());
    /// assert!((k.ce - 0.034133).abs() < 1e-5);
    /// assert!((k.cc + 2.0 * k.ce + 2.0 * k.cn + 3.0 * k.ct - 1.0).abs() < 1e-15);
    /// ```
    pub fn rodinia(grid: Grid3) -> Coefficients<f64> {
        let dx = CHIP_HEIGHT / grid.ny() as f64;
        let dy = CHIP_WIDTH / grid.nx() as f64;
        let dz = T_CHIP / grid.nz() as f64;
        let cap = FACTOR_CHIP * SPEC_HEAT_SI * T_CHIP * dx * dy;
        let rx = dy / (2.0 * K_SI * T_CHIP * dx);
        let ry = dx / (2.0 * K_SI * T_CHIP * dy);
        let rz = dz / (K_SI * dx * dy);
        let max_slope = MAX_PD / (FACTOR_CHIP * T_CHIP * SPEC_HEAT_SI);
        let dt = PRECISION / max_slope;
        let sdc = dt / cap;
        let (ce, cn, ct) = (sdc / rx, sdc / ry, sdc / rz);
        Coefficients {
            cc: 1.0 - (2.0 * ce + 2.0 * cn + 3.0 * ct),
            cw: ce,
            ce,
            cs: cn,
            cn,
            cb: ct,
            ct,
            sdc,
            amb: AMB_TEMP,
        }
    }

    /// The coefficients as stored by a version: binary64 for `double`,
    /// rounded to binary32 for `float`/`looperf`, binary32 then binary16 for `half`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{fp16::round16, grid::Grid3, hotspot::Coefficients,
    ///     version::Version};
    /// let k = Coefficients::rodinia(Grid3::new(64, 64, 8).unwrap());
    /// assert_eq!(k.stored(Version::Double), k);
    /// assert_eq!(k.stored(Version::Float).ce, k.ce as f32 as f64);
    /// assert_eq!(k.stored(Version::Looperf), k.stored(Version::Float));
    /// assert_eq!(k.stored(Version::Half).ce, f64::from(round16(k.ce as f32 as f64)));
    /// assert_eq!(k.stored(Version::Half).amb, 80.0); // exact in every format
    /// ```
    pub fn stored(&self, version: Version) -> Coefficients<f64> {
        self.map(|v| store(v, version))
    }

    /// The seven weights of the state, in the order of the update.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::Coefficients};
    /// let k = Coefficients { cc: 1.0, cw: 2.0, ce: 3.0, cs: 4.0, cn: 5.0, cb: 6.0, ct: 7.0,
    ///                        sdc: 8.0, amb: 9.0 };
    /// assert_eq!(k.weights(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]); // cc, cw, ce, cs, cn, cb, ct
    /// // Rodinia's weights sum to 1 - ct (up to the rounding of cc)
    /// let k = Coefficients::rodinia(Grid3::new(512, 512, 8).unwrap());
    /// assert!((k.weights().iter().sum::<f64>() - (1.0 - k.ct)).abs() < 1e-15);
    /// ```
    pub fn weights(&self) -> [f64; 7] {
        [
            self.cc, self.cw, self.ce, self.cs, self.cn, self.cb, self.ct,
        ]
    }
}

impl<T: Copy> Coefficients<T> {
    /// Applies `f` to every coefficient.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::{Coefficients, HotSpot3D}};
    /// let k = Coefficients { cc: 1, cw: 2, ce: 3, cs: 4, cn: 5, cb: 6, ct: 7, sdc: 8, amb: 9 };
    /// let m = k.map(|v| 10 * v);
    /// assert_eq!((m.cc, m.ct, m.sdc, m.amb), (10, 70, 80, 90));
    /// // the binary32 coefficients are the binary64 ones mapped by a rounding
    /// let app = HotSpot3D::synthetic(Grid3::new(4, 4, 2).unwrap(), 1).unwrap();
    /// assert_eq!(app.coefficients().map(|v| v as f32), *app.coefficients32());
    /// ```
    pub fn map<U>(&self, f: impl Fn(T) -> U) -> Coefficients<U> {
        Coefficients {
            cc: f(self.cc),
            cw: f(self.cw),
            ce: f(self.ce),
            cs: f(self.cs),
            cn: f(self.cn),
            cb: f(self.cb),
            ct: f(self.ct),
            sdc: f(self.sdc),
            amb: f(self.amb),
        }
    }
}

/// `v` as a version stores it (see [`Coefficients::stored`]); non-finite or
/// overflowing values become infinities, which callers check.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{hotspot::store, version::Version};
/// assert_eq!(store(0.1, Version::Double), 0.1);
/// assert_eq!(store(0.1, Version::Float), f64::from(0.1f32));
/// // binary16 has spacing 2^-14 near 0.1: 0.1 / 2^-14 = 1638.4, so 1638 x 2^-14
/// assert_eq!(store(0.1, Version::Half), 0.0999755859375);
/// assert_eq!(store(1e5, Version::Half), f64::INFINITY); // beyond 65504
/// assert_eq!(store(1e39, Version::Float), f64::INFINITY); // beyond binary32
/// ```
pub fn store(v: f64, version: Version) -> f64 {
    match version {
        Version::Double => v,
        Version::Float | Version::Looperf => v as f32 as f64,
        Version::Half => f64::from(round16(v as f32 as f64)),
    }
}

/// A HotSpot3D problem: grid, coefficients and inputs, ready to run in every
/// version.
#[derive(Clone, Debug)]
pub struct HotSpot3D {
    grid: Grid3,
    coefficients: Coefficients<f64>,
    temp: Vec<f64>,
    power: Vec<f64>,
    power32: Vec<f32>,
    power16: Vec<f32>,
    k32: Coefficients<f32>,
    k16: Coefficients<f32>,
}

impl HotSpot3D {
    /// A problem on `grid` with initial temperatures `temp` and powers `power`
    /// (length `grid.cells()`, finite; the binary32 kernels read them rounded
    /// to binary32, the half kernel rounded again to binary16).
    ///
    /// A power beyond binary16's range is accepted: only the `half` version
    /// stores powers in binary16, and it refuses them
    /// ([`HotSpot3D::half_power_overflow`]); `float`, `looperf` and `double`
    /// run on them.
    ///
    /// # Errors
    /// Length mismatch, non-finite values, a power that overflows binary32 (a
    /// temperature that does is refused when a run starts:
    /// [`HotSpot3D::initial32`]).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, grid::Grid3, hotspot::HotSpot3D};
    /// let g = Grid3::new(2, 1, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.0, 330.0], vec![1.0, 2.0]).unwrap();
    /// assert_eq!(app.grid(), g);
    /// let short = HotSpot3D::new(g, vec![320.0], vec![1.0, 2.0]);
    /// assert!(matches!(short, Err(InterleaveError::Verify(_))));
    /// let nan = HotSpot3D::new(g, vec![320.0, 330.0], vec![1.0, f64::NAN]);
    /// assert!(matches!(nan, Err(InterleaveError::NonFinite { index: 1, .. })));
    /// let huge = HotSpot3D::new(g, vec![320.0, 330.0], vec![1e39, 2.0]);
    /// assert!(matches!(huge, Err(InterleaveError::ConversionOverflow { index: 0, .. })));
    /// ```
    pub fn new(grid: Grid3, temp: Vec<f64>, power: Vec<f64>) -> Result<HotSpot3D> {
        let n = grid.cells();
        for (what, v) in [("temp", &temp), ("power", &power)] {
            boundgate_verify::error::require_same_len(
                &format!("{what} and the grid {grid}"),
                v.len(),
                n,
            )?;
            require_finite(what, v)?;
        }
        let power32: Vec<f32> = power.iter().map(|&p| p as f32).collect();
        if let Some(i) = power32.iter().position(|p| !p.is_finite()) {
            return Err(overflow(0, i, power[i], Format::FP32));
        }
        let power16: Vec<f32> = power32.iter().map(|&p| round16(f64::from(p))).collect();
        let coefficients = Coefficients::rodinia(grid);
        Ok(HotSpot3D {
            grid,
            k32: coefficients.map(|v| v as f32),
            k16: coefficients.map(|v| round16(v as f32 as f64)),
            coefficients,
            temp,
            power,
            power32,
            power16,
        })
    }

    /// The problem on `grid` with [`synthetic_inputs`] from `seed`.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::{HotSpot3D, synthetic_inputs}};
    /// let g = Grid3::new(4, 4, 2).unwrap();
    /// let app = HotSpot3D::synthetic(g, 7).unwrap();
    /// let (temp, power) = synthetic_inputs(g, 7);
    /// assert_eq!((app.temp(), app.power()), (&temp[..], &power[..]));
    /// assert_ne!(HotSpot3D::synthetic(g, 8).unwrap().temp(), app.temp()); // another seed
    /// ```
    pub fn synthetic(grid: Grid3, seed: u64) -> Result<HotSpot3D> {
        let (temp, power) = synthetic_inputs(grid, seed);
        HotSpot3D::new(grid, temp, power)
    }

    /// The grid.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
    /// let g = Grid3::new(5, 3, 2).unwrap();
    /// let app = HotSpot3D::synthetic(g, 1).unwrap();
    /// assert_eq!(app.grid(), g);
    /// assert_eq!(app.temp().len(), app.grid().cells()); // 30
    /// ```
    pub fn grid(&self) -> Grid3 {
        self.grid
    }
    /// The binary64 coefficients.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::{Coefficients, HotSpot3D}};
    /// let g = Grid3::new(8, 4, 2).unwrap();
    /// let app = HotSpot3D::synthetic(g, 1).unwrap();
    /// assert_eq!(*app.coefficients(), Coefficients::rodinia(g));
    /// assert_eq!(app.coefficients().amb, 80.0);
    /// ```
    pub fn coefficients(&self) -> &Coefficients<f64> {
        &self.coefficients
    }
    /// The binary32 coefficients.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D, version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 4, 2).unwrap(), 1).unwrap();
    /// let k = app.coefficients32();
    /// assert_eq!(k.ce, app.coefficients().ce as f32);
    /// // what the float version stores, widened exactly
    /// assert_eq!(k.map(f64::from), app.coefficients().stored(Version::Float));
    /// ```
    pub fn coefficients32(&self) -> &Coefficients<f32> {
        &self.k32
    }
    /// The binary16 coefficients (as `f32`).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{fp16::round16, grid::Grid3, hotspot::HotSpot3D,
    ///     version::Version};
    /// let app = HotSpot3D::synthetic(Grid3::new(8, 4, 2).unwrap(), 1).unwrap();
    /// let k = app.coefficients16();
    /// // binary32 first, then binary16, as a half kernel converts its float parameters
    /// assert_eq!(*k, app.coefficients32().map(|v| round16(f64::from(v))));
    /// assert_eq!(k.map(f64::from), app.coefficients().stored(Version::Half));
    /// ```
    pub fn coefficients16(&self) -> &Coefficients<f32> {
        &self.k16
    }
    /// The initial temperatures as given.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
    /// let g = Grid3::new(2, 1, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.1, 300.0], vec![1.0, 1.0]).unwrap();
    /// assert_eq!(app.temp(), [320.1, 300.0]); // not rounded to binary32
    /// assert_ne!(app.initial64().unwrap()[0], 320.1); // the runs start from f32(320.1)
    /// ```
    pub fn temp(&self) -> &[f64] {
        &self.temp
    }
    /// The powers as given.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
    /// let g = Grid3::new(2, 1, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.0, 300.0], vec![0.1, 1e5]).unwrap();
    /// assert_eq!(app.power(), [0.1, 1e5]); // not rounded
    /// ```
    pub fn power(&self) -> &[f64] {
        &self.power
    }
    /// The powers rounded to binary32.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
    /// let g = Grid3::new(2, 1, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.0, 300.0], vec![0.1, 1e5]).unwrap();
    /// assert_eq!(app.power32(), [0.1f32, 1e5f32]);
    /// assert_ne!(f64::from(app.power32()[0]), app.power()[0]); // 0.1 is not a binary32 number
    /// ```
    pub fn power32(&self) -> &[f32] {
        &self.power32
    }
    /// The powers rounded to binary32, then binary16: infinite where a power
    /// overflows binary16 ([`HotSpot3D::half_power_overflow`]).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
    /// let g = Grid3::new(3, 1, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.0; 3], vec![0.1, 1e5, 2.0]).unwrap();
    /// // 0.1: 1638 x 2^-14 in binary16; 1e5 > 65504 overflows; 2 is exact
    /// assert_eq!(app.power16(), [0.0999755859375, f32::INFINITY, 2.0]);
    /// ```
    pub fn power16(&self) -> &[f32] {
        &self.power16
    }

    /// The first power (index, value as given) that overflows binary16, where
    /// the `half` version stores the powers: that version cannot run then.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::grid::Grid3;
    /// use boundgate::kernels::interleave::hotspot::HotSpot3D;
    /// let grid = Grid3::new(2, 1, 1).unwrap();
    /// let app = HotSpot3D::new(grid, vec![300.0, 300.0], vec![1.0, 1e5]).unwrap();
    /// assert_eq!(app.half_power_overflow(), Some((1, 1e5)));
    /// ```
    pub fn half_power_overflow(&self) -> Option<(usize, f64)> {
        let i = self.power16.iter().position(|p| !p.is_finite())?;
        Some((i, self.power[i]))
    }

    /// The initial state of the application's data in binary32 (Rodinia reads
    /// floats), from which every `float`/`looperf` run starts.
    ///
    /// # Errors
    /// [`InterleaveError::ConversionOverflow`] for a temperature beyond binary32's range.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, grid::Grid3, hotspot::HotSpot3D};
    /// let g = Grid3::new(2, 1, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.1, 300.0], vec![1.0, 1.0]).unwrap();
    /// assert_eq!(app.initial32().unwrap(), [320.1f32, 300.0]);
    /// // a finite binary64 temperature that overflows binary32: refused here
    /// let hot = HotSpot3D::new(g, vec![1e39, 300.0], vec![1.0, 1.0]).unwrap();
    /// assert!(matches!(hot.initial32(), Err(InterleaveError::ConversionOverflow { index: 0, .. })));
    /// ```
    pub fn initial32(&self) -> Result<Vec<f32>> {
        let values: Vec<f32> = self.temp.iter().map(|&t| t as f32).collect();
        match values.iter().position(|v| !v.is_finite()) {
            Some(i) => Err(overflow(0, i, self.temp[i], Format::FP32)),
            None => Ok(values),
        }
    }

    /// The ground truth's initial state: the binary32 data, exactly, in
    /// binary64 (so that every run starts from the same numbers).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{grid::Grid3, hotspot::HotSpot3D};
    /// let g = Grid3::new(2, 1, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.1, 300.0], vec![1.0, 1.0]).unwrap();
    /// assert_eq!(app.initial64().unwrap(), [f64::from(320.1f32), 300.0]);
    /// // 320.1 in binary32 is 320.100006103515625 (spacing 2^-15 there)
    /// assert_eq!(app.initial64().unwrap()[0], 320.100006103515625);
    /// ```
    pub fn initial64(&self) -> Result<Vec<f64>> {
        Ok(self.initial32()?.into_iter().map(f64::from).collect())
    }

    /// The initial state of `version`: the binary32 data converted to its
    /// format (the thesis's conversion before iteration 1).
    ///
    /// # Errors
    /// As [`HotSpot3D::initial32`]; [`InterleaveError::ConversionOverflow`]
    /// for `half` when a temperature exceeds 65504.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, grid::Grid3,
    ///     hotspot::HotSpot3D, version::Version};
    /// let g = Grid3::new(2, 1, 1).unwrap();
    /// let app = HotSpot3D::new(g, vec![320.1, 300.0], vec![1.0, 1.0]).unwrap();
    /// let f = app.initial_state(Version::Float).unwrap();
    /// assert_eq!((f.values, f.storage, f.perforation), (vec![320.1f32, 300.0], Version::Float, 0));
    /// // binary16 has spacing 0.25 between 256 and 512: 320.1 rounds to 320
    /// let h = app.initial_state(Version::Half).unwrap();
    /// assert_eq!((h.values, h.storage), (vec![320.0, 300.0], Version::Half));
    /// let hot = HotSpot3D::new(g, vec![70000.0, 300.0], vec![1.0, 1.0]).unwrap();
    /// assert!(hot.initial_state(Version::Float).is_ok());
    /// assert!(matches!(hot.initial_state(Version::Half), Err(InterleaveError::ConversionOverflow { .. })));
    /// ```
    pub fn initial_state(&self, version: Version) -> Result<State> {
        let s = State {
            values: self.initial32()?,
            storage: Version::Float,
            perforation: 0,
        };
        s.converted(version, 0)
    }
}

/// The state of one run: its values (binary32 or binary16 numbers carried as
/// `f32`), the format they are in, and the loop-perforation counter of Fig. 5.2.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The temperatures.
    pub values: Vec<f32>,
    /// `Version::Float` for binary32 values, `Version::Half` for binary16.
    pub storage: Version,
    /// The `count` of the perforated loop (Freytag 2023, Fig. 5.2), kept
    /// across interleaving like the thesis's global variable.
    pub perforation: u8,
}

impl State {
    /// The state converted to the storage of `version` (round to nearest
    /// even); a no-op when the format does not change. `iteration` is only
    /// used to report an overflow.
    ///
    /// # Errors
    /// [`InterleaveError::ConversionOverflow`] when a value exceeds binary16's
    /// 65504 (rounding it would give infinity).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{error::InterleaveError, hotspot::State, version::Version};
    /// let s = State { values: vec![1.0, 320.1], storage: Version::Float, perforation: 3 };
    /// let h = s.clone().converted(Version::Half, 0).unwrap();
    /// assert_eq!((&h.values[..], h.storage, h.perforation), (&[1.0f32, 320.0][..], Version::Half, 3));
    /// // back to binary32 is exact; float and looperf share the storage
    /// assert_eq!(h.clone().converted(Version::Float, 0).unwrap().values, h.values);
    /// assert_eq!(s.clone().converted(Version::Looperf, 0).unwrap(), s);
    /// let hot = State { values: vec![1.0, 70000.0], storage: Version::Float, perforation: 0 };
    /// let e = hot.converted(Version::Half, 7);
    /// assert!(matches!(e, Err(InterleaveError::ConversionOverflow { iteration: 7, index: 1, .. })));
    /// ```
    pub fn converted(mut self, version: Version, iteration: usize) -> Result<State> {
        let target = storage_of(version);
        if target == self.storage {
            return Ok(self);
        }
        if target == Version::Half {
            for (i, v) in self.values.iter_mut().enumerate() {
                let r = round16(f64::from(*v));
                if !r.is_finite() && v.is_finite() {
                    return Err(overflow(iteration, i, f64::from(*v), Format::FP16));
                }
                *v = r;
            }
        }
        // binary16 -> binary32 is exact: nothing to do to the values.
        self.storage = target;
        Ok(self)
    }

    /// Whether converting to `version` changes the format.
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::interleave::{hotspot::State, version::Version};
    /// let s = State { values: vec![300.0], storage: Version::Float, perforation: 0 };
    /// assert!(s.needs_conversion(Version::Half));
    /// assert!(!s.needs_conversion(Version::Float) && !s.needs_conversion(Version::Looperf));
    /// let h = s.converted(Version::Half, 0).unwrap();
    /// assert!(h.needs_conversion(Version::Float) && !h.needs_conversion(Version::Half));
    /// ```
    pub fn needs_conversion(&self, version: Version) -> bool {
        storage_of(version) != self.storage
    }
}

/// The storage tag of a version's state (`Float` or `Half`).
fn storage_of(version: Version) -> Version {
    if version == Version::Half {
        Version::Half
    } else {
        Version::Float
    }
}

fn overflow(iteration: usize, index: usize, value: f64, format: Format) -> InterleaveError {
    InterleaveError::ConversionOverflow {
        iteration,
        index,
        value,
        format: format.name().to_string(),
        max: format.max_finite(),
    }
}

/// A deterministic, Rodinia-like input pair for `grid` (binary32 values).
///
/// Powers: a background with rectangular "functional units" of higher power,
/// as a floorplan has, scaled so that the equilibrium of a uniform field
/// (`80 + Rz P`: the update is stationary there, since `sdc / ct = Rz`) is
/// about 270 K, and up to about 50 K more under the units. Temperatures:
/// Rodinia-like values around 323 K (its `temp_*` files start near there)
/// with a smooth wave of 4 K and noise of 0.5 K, so the field relaxes toward
/// equilibrium during the run at the rate `ct` per iteration. In binary16
/// (spacing 0.25 between 256 and 512) most of these increments are below
/// half a spacing and the half kernel stagnates: its loss grows throughout
/// the run, as in the thesis's HotSpot3D profiles (Freytag 2023, Fig. 3.5,
/// §5.3.3), where the float kernel also retracts the loss only slowly.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{grid::Grid3, hotspot::synthetic_inputs};
/// let g = Grid3::new(8, 8, 2).unwrap();
/// let (t, p) = synthetic_inputs(g, 1);
/// assert_eq!((t.len(), p.len()), (128, 128));
/// assert!(t.iter().all(|&v| v == v as f32 as f64 && v > 300.0 && v < 330.0));
/// assert_eq!(synthetic_inputs(g, 1), (t, p));
/// ```
pub fn synthetic_inputs(grid: Grid3, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let k = Coefficients::rodinia(grid);
    // sdc / ct = Rz: the equilibrium of a uniform field is amb + Rz P.
    let rz = k.sdc / k.ct;
    let (nx, ny, nz) = (grid.nx(), grid.ny(), grid.nz());
    // Power: background plus 6 units per layer, as fractions of the power
    // that puts the equilibrium 250 K above ambient.
    let unit_power = 250.0 / rz;
    let mut power = vec![0.0; grid.cells()];
    for z in 0..nz {
        let units: Vec<(usize, usize, usize, usize, f64)> = (0..6)
            .map(|_| {
                let (x0, y0) = (rng.random_range(0..nx), rng.random_range(0..ny));
                let (w, h) = (
                    rng.random_range(1..=nx.div_ceil(3)),
                    rng.random_range(1..=ny.div_ceil(3)),
                );
                (x0, y0, w, h, rng.random_range(0.05..0.2))
            })
            .collect();
        for y in 0..ny {
            for x in 0..nx {
                let mut p = 0.76 + 0.02 * rng.random::<f64>();
                for &(x0, y0, w, h, extra) in &units {
                    if x >= x0 && x < x0 + w && y >= y0 && y < y0 + h {
                        p += extra;
                    }
                }
                power[grid.index(x, y, z)] = (p * unit_power) as f32 as f64;
            }
        }
    }
    let two_pi = std::f64::consts::TAU;
    let mut temp = vec![0.0; grid.cells()];
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let c = grid.index(x, y, z);
                let wave =
                    (two_pi * x as f64 / nx as f64).sin() * (two_pi * y as f64 / ny as f64).cos();
                let t = 323.15 + 4.0 * wave + rng.random_range(-0.5..0.5);
                temp[c] = t as f32 as f64;
            }
        }
    }
    (temp, power)
}

/// Reads one of Rodinia's HotSpot3D text files (one value per line; line
/// `k` of the loop `for i < rows, for j < cols, for l < layers` holds cell
/// `i cols + j + l rows cols`, as `readinput` in `3D.c` stores it).
///
/// Blank lines after the last value are allowed (a final newline, an editor's
/// trailing blank line); a value after the grid's last cell is refused, since
/// a file with more values than cells is most likely for another grid.
///
/// # Errors
/// An unreadable file, too few lines, a line that is not a number, or a
/// non-blank line after the `nx ny nz` values.
///
/// # Example
/// ```
/// use boundgate::kernels::interleave::{grid::Grid3, hotspot::read_rodinia_text};
/// let dir = std::env::temp_dir().join(format!("rodinia-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let (exact, long) = (dir.join("exact.txt"), dir.join("long.txt"));
/// std::fs::write(&exact, "1\n2\n3\n4\n\n").unwrap();
/// std::fs::write(&long, "1\n2\n3\n4\n5\n").unwrap();
/// let grid = Grid3::new(2, 2, 1).unwrap();
/// assert_eq!(read_rodinia_text(&exact, grid).unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
/// let err = read_rodinia_text(&long, grid).unwrap_err();
/// assert!(err.to_string().contains("long.txt:5: values: more than 4 values"), "{err}");
/// ```
pub fn read_rodinia_text(path: &Path, grid: Grid3) -> Result<Vec<f64>> {
    let text = std::fs::read_to_string(path).map_err(|e| InterleaveError::io(path, e))?;
    let mut lines = text.lines().enumerate();
    let mut values = vec![0.0; grid.cells()];
    for i in 0..grid.ny() {
        for j in 0..grid.nx() {
            for l in 0..grid.nz() {
                let (line, s) = lines.next().ok_or_else(|| {
                    InterleaveError::file(
                        path,
                        None,
                        "values",
                        format!("fewer than {} lines for grid {grid}", grid.cells()),
                    )
                })?;
                let v: f64 = s.trim().parse().map_err(|_| {
                    InterleaveError::file(
                        path,
                        Some(line + 1),
                        "value",
                        format!("`{s}` is not a number"),
                    )
                })?;
                values[i * grid.nx() + j + l * grid.layer()] = v;
            }
        }
    }
    if let Some((line, _)) = lines.find(|(_, s)| !s.trim().is_empty()) {
        return Err(InterleaveError::file(
            path,
            Some(line + 1),
            "values",
            format!(
                "more than {} values for grid {grid} (a value after the last cell)",
                grid.cells()
            ),
        ));
    }
    Ok(values)
}
