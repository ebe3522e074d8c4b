//! Charts for reports, rendered as standalone SVG (plotters' SVG backend: no
//! fonts or system libraries needed, openable offline in any browser).
//!
//! One small API for every report: a [`Chart`] of [`Series`] (lines or
//! points), linear or logarithmic axes, with an [`ecdf`] helper for error
//! distributions.

use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{
    BoldPoints, KeyPointHint, KeyPointWeight, NoDefaultFormatting, ValueFormatter,
};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use serde::{Deserialize, Deserializer, Serialize};
use std::ops::Range;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    /// Points joined by straight lines (a lone drawable point as a dot).
    Line,
    /// Points only.
    Points,
    /// A horizontal or vertical reference, drawn as a thin (1 px) solid line
    /// (a lone drawable point as a dot).
    Reference,
}

/// One named series of points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// The points (x, y). JSON writes non-finite coordinates as `null`;
    /// they read back as NaN (and are never drawn).
    #[serde(deserialize_with = "points_with_nulls")]
    pub points: Vec<(f64, f64)>,
    /// How to draw it.
    pub style: Style,
}

fn points_with_nulls<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(f64, f64)>, D::Error> {
    let raw: Vec<(Option<f64>, Option<f64>)> = Vec::deserialize(d)?;
    Ok(raw
        .into_iter()
        .map(|(x, y)| (x.unwrap_or(f64::NAN), y.unwrap_or(f64::NAN)))
        .collect())
}

impl Series {
    /// A line series.
    ///
    /// # Example
    /// ```
    /// use boundgate::plot::{Series, Style};
    /// let s = Series::line("bound", vec![(1.0, 2.0), (3.0, 4.0)]);
    /// assert_eq!(s.style, Style::Line);
    /// assert_eq!((s.label.as_str(), s.points.as_slice()), ("bound", &[(1.0, 2.0), (3.0, 4.0)][..]));
    /// ```
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            points,
            style: Style::Line,
        }
    }
    /// A point series.
    ///
    /// # Example
    /// ```
    /// use boundgate::plot::{Chart, Series, Style};
    /// let s = Series::points("observed", vec![(1.0, 1.0), (2.0, f64::NAN), (3.0, 3.0)]);
    /// assert_eq!(s.style, Style::Points);
    /// // Each finite point is drawn as one circle; the NaN one is not drawn.
    /// let svg = Chart::new("t", "x", "y").with(s).to_svg().unwrap();
    /// assert_eq!(svg.matches("<circle").count(), 2);
    /// ```
    pub fn points(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            points,
            style: Style::Points,
        }
    }
    /// A reference line (e.g. a bound) through the given points.
    ///
    /// # Example
    /// ```
    /// use boundgate::plot::{Series, Style};
    /// let s = Series::reference("u", vec![(0.0, 0.5), (10.0, 0.5)]);
    /// assert_eq!(s.style, Style::Reference);
    /// assert_eq!(s.label, "u");
    /// assert_eq!(s.points, [(0.0, 0.5), (10.0, 0.5)]);
    /// ```
    pub fn reference(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            points,
            style: Style::Reference,
        }
    }
}

/// A chart: title, axis labels and scales, series.
///
/// # Example
/// ```
/// use boundgate::plot::{Chart, Series};
/// let chart = Chart::new("error and bound", "n", "relative error")
///     .log_x()
///     .log_y()
///     .with(Series::line("bound", vec![(10.0, 1e-15), (1e6, 1e-10)]))
///     .with(Series::points("observed", vec![(10.0, 1e-17), (1e6, 1e-14)]));
/// let svg = chart.to_svg().unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("observed"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// Title.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// Logarithmic x axis (non-positive x values are dropped, and so are
    /// values more than 10^290 below the largest: see [`Chart::to_svg`]).
    pub x_log: bool,
    /// Logarithmic y axis (non-positive y values are dropped, and so are
    /// values more than 10^290 below the largest: see [`Chart::to_svg`]).
    pub y_log: bool,
    /// The series.
    pub series: Vec<Series>,
}

impl Chart {
    /// An empty chart with linear axes.
    ///
    /// # Example
    /// ```
    /// use boundgate::plot::Chart;
    /// let c = Chart::new("title", "n", "error");
    /// assert_eq!((c.title.as_str(), c.x_label.as_str(), c.y_label.as_str()), ("title", "n", "error"));
    /// assert!(!c.x_log && !c.y_log && c.series.is_empty());
    /// ```
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Chart {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_log: false,
            y_log: false,
            series: Vec::new(),
        }
    }
    /// Logarithmic x axis.
    ///
    /// # Example
    /// ```
    /// use boundgate::plot::{Chart, Series};
    /// let c = Chart::new("t", "x", "y").log_x();
    /// assert!(c.x_log && !c.y_log);
    /// // A log x axis drops the point at x = 0: one circle of two.
    /// let svg = c.with(Series::points("p", vec![(0.0, 1.0), (10.0, 2.0)])).to_svg().unwrap();
    /// assert_eq!(svg.matches("<circle").count(), 1);
    /// ```
    pub fn log_x(mut self) -> Chart {
        self.x_log = true;
        self
    }
    /// Logarithmic y axis.
    ///
    /// # Example
    /// ```
    /// use boundgate::plot::{Chart, Series};
    /// let c = Chart::new("t", "x", "y").log_y();
    /// assert!(c.y_log && !c.x_log);
    /// // A log y axis drops the points at y <= 0: one circle of three.
    /// let svg = c.with(Series::points("p", vec![(1.0, -1.0), (2.0, 0.0), (3.0, 1e-16)])).to_svg().unwrap();
    /// assert_eq!(svg.matches("<circle").count(), 1);
    /// ```
    pub fn log_y(mut self) -> Chart {
        self.y_log = true;
        self
    }
    /// Adds a series.
    ///
    /// # Example
    /// ```
    /// use boundgate::plot::{Chart, Series};
    /// let c = Chart::new("t", "x", "y")
    ///     .with(Series::line("first", vec![(0.0, 0.0)]))
    ///     .with(Series::points("second", vec![(1.0, 1.0)]));
    /// // kept in the order added (legend and colours follow it)
    /// let labels: Vec<&str> = c.series.iter().map(|s| s.label.as_str()).collect();
    /// assert_eq!(labels, ["first", "second"]);
    /// ```
    pub fn with(mut self, series: Series) -> Chart {
        self.series.push(series);
        self
    }

    /// The drawable points of each series, in order: finite, inside each
    /// axis's window ([`Chart::window`], computed once for all series).
    fn drawable(&self) -> Vec<Vec<(f64, f64)>> {
        let (wx, wy) = (
            self.window(|p| p.0, self.x_log),
            self.window(|p| p.1, self.y_log),
        );
        let inside = |v: f64, (lo, hi): (f64, f64)| v >= lo && v <= hi;
        self.series
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .copied()
                    .filter(|&(x, y)| inside(x, wx) && inside(y, wy))
                    .collect()
            })
            .collect()
    }

    /// The values an axis can draw. plotters computes an axis's span in
    /// binary64 (a difference, or for a log axis a ratio) and its tick loop
    /// never ends on an infinite one: a ratio of 1e-320 or 1.1e308 on a log
    /// axis hung `--html` (review, 2026-11-26). So values beyond
    /// `1e300` in magnitude are not drawn, and a log axis spans at most
    /// `10^290`, down from its largest value (the top is where violations
    /// are); points outside are dropped like non-finite ones. Subnormal
    /// values are positive: a log axis ([`LogAxis`]) draws them (they were
    /// dropped, with the axis below f64::MIN_POSITIVE, until 2026-11-29).
    fn window(&self, axis: fn(&(f64, f64)) -> f64, log: bool) -> (f64, f64) {
        const LIMIT: f64 = 1e300;
        if !log {
            return (-LIMIT, LIMIT);
        }
        let top = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .map(axis)
            .filter(|&v| v > 0.0 && v <= LIMIT)
            .fold(0.0, f64::max);
        if top == 0.0 {
            return (SMALLEST, LIMIT);
        }
        ((top * 1e-290).max(SMALLEST), LIMIT)
    }

    /// The axis range over the drawable points.
    fn range(drawable: &[Vec<(f64, f64)>], axis: fn(&(f64, f64)) -> f64, log: bool) -> (f64, f64) {
        let (lo, hi) = drawable
            .iter()
            .flatten()
            .map(axis)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        if !lo.is_finite() {
            return if log { (0.1, 10.0) } else { (0.0, 1.0) };
        }
        if log {
            let (lo, hi) = if lo == hi {
                (lo / 10.0, hi * 10.0)
            } else {
                (lo, hi)
            };
            // Positive: a subnormal divided may round to 0.
            ((lo / 1.5).max(SMALLEST), hi * 1.5)
        } else {
            // Scaled before subtracting: within the window, no overflow.
            let pad = if hi > lo {
                hi * 0.05 - lo * 0.05
            } else {
                lo.abs().max(1.0) * 0.05
            };
            (lo - pad, hi + pad)
        }
    }

    /// Renders the chart as a standalone SVG document (800 x 500). Points
    /// with a coordinate that is not finite or beyond 1e300 in magnitude
    /// are not drawn, nor, on a log axis, those at or below zero or more
    /// than 10^290 below the axis's largest value. Tick labels carry the
    /// digits that tell them apart.
    ///
    /// # Example
    /// ```
    /// use boundgate::plot::{Chart, Series};
    /// let svg = Chart::new("tightness", "n", "ratio")
    ///     .with(Series::points("ratio", vec![(1.0, 0.25), (2.0, 0.5), (3.0, f64::INFINITY)]))
    ///     .to_svg()
    ///     .unwrap();
    /// assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    /// assert!(svg.contains(r#"width="800""#) && svg.contains(r#"height="500""#));
    /// assert!(svg.contains("tightness") && svg.contains("ratio"));
    /// // the infinite point is not drawn
    /// assert_eq!(svg.matches("<circle").count(), 2);
    /// ```
    pub fn to_svg(&self) -> Result<String> {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
            self.draw(&root)
                .map_err(|e| Error::usage(format!("chart `{}`: {e}", self.title)))?;
            root.present()
                .map_err(|e| Error::usage(format!("chart `{}`: {e}", self.title)))?;
        }
        Ok(svg)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let drawable = self.drawable();
        let x = Chart::range(&drawable, |p| p.0, self.x_log);
        let y = Chart::range(&drawable, |p| p.1, self.y_log);
        let mut builder = ChartBuilder::on(root);
        builder
            .caption(svg_text(&self.title), ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80);
        // The four scale combinations are different types in plotters. Log
        // axes are [`LogAxis`], not plotters' log scale, which labels powers
        // of ten only and drops those below f64::EPSILON as zeros: an axis
        // over [0.13, 0.75] (tightness ratios), [10.7, 96] (sizes 16 to 64)
        // or [1e-20, 1e-17] (fp64 errors) had no tick label; linear axes
        // are [`LinearAxis`], whose span may be narrower than f64::EPSILON
        // (review, 2026-11-29).
        match (self.x_log, self.y_log) {
            (false, false) => {
                let chart = builder
                    .build_cartesian_2d(LinearAxis::new(x), LinearAxis::new(y))
                    .map_err(|e| e.to_string())?;
                self.fill(chart, drawable)
            }
            (true, false) => {
                let chart = builder
                    .build_cartesian_2d(LogAxis::new(x), LinearAxis::new(y))
                    .map_err(|e| e.to_string())?;
                self.fill(chart, drawable)
            }
            (false, true) => {
                let chart = builder
                    .build_cartesian_2d(LinearAxis::new(x), LogAxis::new(y))
                    .map_err(|e| e.to_string())?;
                self.fill(chart, drawable)
            }
            (true, true) => {
                let chart = builder
                    .build_cartesian_2d(LogAxis::new(x), LogAxis::new(y))
                    .map_err(|e| e.to_string())?;
                self.fill(chart, drawable)
            }
        }
    }

    fn fill<'a, DB, X, Y>(
        &self,
        mut chart: ChartContext<'a, DB, Cartesian2d<X, Y>>,
        drawable: Vec<Vec<(f64, f64)>>,
    ) -> std::result::Result<(), String>
    where
        DB: DrawingBackend + 'a,
        DB::ErrorType: 'static,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        // The labels carry as many digits as tell the labelled ticks apart
        // (three decimals labelled every tick of [0.25, 0.2501] "0.25").
        let spec = chart.as_coord_spec();
        let x_digits = label_digits(&spec.x_spec().key_points(BoldPoints(LABELS)));
        let y_digits = label_digits(&spec.y_spec().key_points(BoldPoints(LABELS)));
        chart
            .configure_mesh()
            .x_labels(LABELS)
            .y_labels(LABELS)
            .x_desc(svg_text(&self.x_label))
            .y_desc(svg_text(&self.y_label))
            .x_label_formatter(&|v| label(*v, x_digits))
            .y_label_formatter(&|v| label(*v, y_digits))
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, (s, points)) in self.series.iter().zip(drawable).enumerate() {
            let color = COLORS[i % COLORS.len()].to_rgba();
            // A line of one point is a one-point polyline, which draws
            // nothing: it gets a dot (the ECDF of one seed vanished; review,
            // 2026-11-29).
            let dot = if points.len() == 1 { 3 } else { 0 };
            let drawn = match s.style {
                Style::Line => chart
                    .draw_series(LineSeries::new(points, color.stroke_width(2)).point_size(dot))
                    .map_err(|e| e.to_string())?,
                Style::Reference => chart
                    .draw_series(LineSeries::new(points, color.stroke_width(1)).point_size(dot))
                    .map_err(|e| e.to_string())?,
                Style::Points => chart
                    .draw_series(
                        points
                            .into_iter()
                            .map(|p| Circle::new(p, 3, color.filled())),
                    )
                    .map_err(|e| e.to_string())?,
            };
            drawn.label(svg_text(&s.label)).legend(move |(x, y)| {
                Rectangle::new([(x, y - 4), (x + 14, y + 4)], color.filled())
            });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// High-contrast series colours (Okabe-Ito), cycled.
const COLORS: [RGBColor; 7] = [
    RGBColor(213, 94, 0),
    RGBColor(0, 114, 178),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
];

/// The smallest positive binary64 value (a subnormal).
const SMALLEST: f64 = f64::from_bits(1);

/// Tick labels per axis (plotters' default, stated: [`label_digits`]
/// must see the ticks the mesh labels).
const LABELS: usize = 11;

/// A compact tick label, `extra` digits beyond the least: `1e-16`, `0.25`,
/// `1000` with none; `0.25001`, `1.05e15` with two. Trailing zeros are
/// dropped (which keeps labels of one `extra` apart).
fn label(v: f64, extra: usize) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1e4 || v.abs() < 1e-3 {
        let s = format!("{v:.extra$e}");
        match s.split_once('e') {
            Some((mantissa, exponent)) if mantissa.contains('.') => format!(
                "{}e{exponent}",
                mantissa.trim_end_matches('0').trim_end_matches('.')
            ),
            _ => s,
        }
    } else {
        let s = format!("{v:.*}", 3 + extra);
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The fewest extra digits ([`label`]) whose labels tell `ticks` apart:
/// at 17, distinct binary64 values have distinct labels.
fn label_digits(ticks: &[f64]) -> usize {
    let distinct = |labels: Vec<String>| {
        let mut labels = labels;
        labels.sort_unstable();
        labels.dedup();
        labels.len()
    };
    let mut values = ticks.to_vec();
    values.sort_by(f64::total_cmp);
    values.dedup();
    (0..17)
        .find(|&extra| distinct(values.iter().map(|&v| label(v, extra)).collect()) == values.len())
        .unwrap_or(17)
}

/// Text as an SVG document may hold it: plotters escapes `& < > " '`, but
/// writes control characters (other than tab, newline and carriage
/// return) and the noncharacters U+FFFE/U+FFFF as they are, which no XML
/// document allows even escaped: they become spaces, as in the HTML page
/// (a report read back by `merge` may hold anything; review, 2026-11-29).
fn svg_text(text: &str) -> String {
    text.chars()
        .map(|c| if markup_forbidden(c) { ' ' } else { c })
        .collect()
}

/// Whether neither XML nor HTML allows `c`, even escaped: control
/// characters other than tab, newline and carriage return, and the
/// noncharacters U+FFFE/U+FFFF (the rule of the charts and of
/// `audit::html::escape_markup`).
pub(crate) fn markup_forbidden(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && (c.is_control() || matches!(c, '\u{FFFE}' | '\u{FFFF}'))
}

/// A linear axis over `[lo, hi]` (`lo < hi`): plotters' own, except that
/// a span under 1e-10 has its ticks found at a power of ten times it.
/// plotters gives a span under f64::EPSILON one tick, its lower end: an
/// axis over [0.9e-18, 3.1e-18] had one label (review, 2026-11-29).
struct LinearAxis {
    coord: RangedCoordf64,
    lo: f64,
    hi: f64,
}

impl LinearAxis {
    fn new((lo, hi): (f64, f64)) -> LinearAxis {
        LinearAxis {
            coord: (lo..hi).into(),
            lo,
            hi,
        }
    }
}

impl Ranged for LinearAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.coord.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let span = self.hi - self.lo;
        if span.is_nan() || span >= 1e-10 {
            return self.coord.key_points(hint);
        }
        // A span of binary64 values is at least an ulp of the larger end
        // (more than 2^-53 of it), and 10^k < 10 / span: |lo| 10^k stays
        // below 10 * 2^53, no overflow.
        let k = (-span.log10()).ceil().clamp(0.0, 300.0);
        let scale: f64 = format!("1e{k}").parse().expect("a decimal number");
        let scaled: RangedCoordf64 = (self.lo * scale..self.hi * scale).into();
        scaled
            .key_points(hint)
            .into_iter()
            .map(|v| v / scale)
            .filter(|v| (self.lo..=self.hi).contains(v))
            .collect()
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for LinearAxis {
    fn format(value: &f64) -> String {
        label(*value, 0)
    }
}

/// A logarithmic axis over `[lo, hi]` (`0 < lo < hi`, as [`Chart::range`]
/// makes it; at least a factor 2.25 wide). Its labelled ticks are powers
/// of ten (every k-th where they are too many), or where fewer than two lie
/// in the range, 1, 2 and 5 or 1, 1.5, 2, ..., 9 times them; its light
/// grid lines are the finest of these that fit.
#[derive(Clone, Debug)]
struct LogAxis {
    lo: f64,
    hi: f64,
}

impl LogAxis {
    fn new((lo, hi): (f64, f64)) -> LogAxis {
        LogAxis { lo, hi }
    }

    /// The values `m 10^e` in the range for `m` in `mantissas` and `e` a
    /// multiple of `stride`, in order. Parsed from decimal, so each is the
    /// binary64 value nearest its label.
    fn ticks(&self, mantissas: &[&str], stride: i32) -> Vec<f64> {
        // Within binary64's exponents: the range is positive and finite.
        let low = (self.lo.log10().floor() as i32).clamp(-330, 310) - 1;
        let high = (self.hi.log10().ceil() as i32).clamp(-330, 310) + 1;
        let mut out = Vec::new();
        for e in (low..=high).filter(|e| e.rem_euclid(stride) == 0) {
            for &m in mantissas {
                let v: f64 = format!("{m}e{e}").parse().expect("a decimal number");
                if v >= self.lo && v <= self.hi {
                    out.push(v);
                }
            }
        }
        out
    }
}

impl Ranged for LogAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        // As plotters maps a linear axis, over the logarithms.
        let (lo, hi) = (self.lo.ln(), self.hi.ln());
        let t = (value.ln() - lo) / (hi - lo);
        let length = f64::from(limit.1) - f64::from(limit.0);
        if !t.is_finite() {
            return if t > 0.0 { limit.1 } else { limit.0 };
        }
        // `as` saturates: no overflow for values far outside the range.
        if length >= 0.0 {
            limit.0.saturating_add((length * t + 1e-3).floor() as i32)
        } else {
            limit.0.saturating_add((length * t - 1e-3).ceil() as i32)
        }
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let max = hint.max_num_points();
        if max == 0 {
            return Vec::new();
        }
        // 1.5 keeps two ticks in every range at least a factor 2 wide.
        const FINER: [&[&str]; 2] = [
            &["1", "2", "5"],
            &["1", "1.5", "2", "3", "4", "5", "6", "7", "8", "9"],
        ];
        let decades = |stride: i32| self.ticks(&["1"], stride);
        // Every k-th power of ten, the least k whose ticks fit.
        let strided = || {
            (1..)
                .map(decades)
                .find(|t| t.len() <= max)
                .expect("a stride past the range leaves at most one tick")
        };
        match hint.weight() {
            KeyPointWeight::Bold => {
                if decades(1).len() >= 2 {
                    return strided();
                }
                let finer: Vec<Vec<f64>> = FINER.iter().map(|m| self.ticks(m, 1)).collect();
                finer
                    .iter()
                    .find(|t| t.len() >= 2 && t.len() <= max)
                    .or_else(|| finer.iter().rev().find(|t| t.len() <= max))
                    .cloned()
                    .unwrap_or_default()
            }
            KeyPointWeight::Any => FINER
                .iter()
                .rev()
                .map(|m| self.ticks(m, 1))
                .find(|t| t.len() <= max)
                .unwrap_or_else(strided),
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for LogAxis {
    fn format(value: &f64) -> String {
        label(*value, 0)
    }
}

/// The empirical distribution function of `values` as a step-like series of
/// points `(v_(i), i / n)` over the sorted finite values.
///
/// # Example
/// ```
/// let points = boundgate::plot::ecdf(&[3.0, 1.0, 2.0]);
/// assert_eq!(points, vec![(1.0, 1.0 / 3.0), (2.0, 2.0 / 3.0), (3.0, 1.0)]);
/// ```
pub fn ecdf(values: &[f64]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    sorted
        .into_iter()
        .enumerate()
        .map(|(i, v)| (v, (i + 1) as f64 / n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scale_renders_and_drops_undrawable_points() {
        for (lx, ly) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut chart = Chart::new("t", "x", "y").with(Series::line(
                "a",
                vec![(0.0, -1.0), (1.0, 2.0), (10.0, f64::NAN)],
            ));
            chart.x_log = lx;
            chart.y_log = ly;
            let svg = chart.to_svg().unwrap();
            assert!(svg.contains("</svg>"));
        }
        // Extreme values render (a ratio of 1e-320 or 1.1e308 on a log axis
        // hung, as did +-1.7e308 on a linear one): beyond the window they
        // are dropped.
        for (log, points) in [
            (true, vec![(1.0, 1e-320), (2.0, 1.0)]),
            (true, vec![(1.0, 1.1e308), (2.0, 1.0)]),
            (true, vec![(1.0, 1e-200), (2.0, 1e200)]),
            (false, vec![(1.0, -1.7e308), (2.0, 1.7e308)]),
            (false, vec![(1.0, -1e300), (2.0, 1e300)]),
        ] {
            let mut chart = Chart::new("t", "x", "y").with(Series::line("a", points.clone()));
            chart.y_log = log;
            assert!(chart.to_svg().unwrap().contains("</svg>"), "{points:?}");
        }
        let chart = Chart::new("t", "x", "y")
            .log_y()
            .with(Series::line("a", vec![(1.0, 1e-320), (2.0, 1.0)]));
        assert_eq!(chart.drawable(), vec![vec![(2.0, 1.0)]]);
        // An empty chart still renders.
        assert!(
            Chart::new("empty", "x", "y")
                .log_y()
                .to_svg()
                .unwrap()
                .contains("empty")
        );
    }
}
