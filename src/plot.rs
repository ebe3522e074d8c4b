//! Charts for reports, rendered as standalone SVG (plotters' SVG backend: no
//! fonts or system libraries needed, openable offline in any browser).
//!
//! One small API for every report: a [`Chart`] of [`Series`] (lines or
//! points), linear or logarithmic axes, with an [`ecdf`] helper for error
//! distributions.

use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use serde::{Deserialize, Deserializer, Serialize};

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    /// Points joined by straight lines.
    Line,
    /// Points only.
    Points,
    /// A horizontal or vertical reference, drawn as a thin (1 px) solid line.
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
    /// Logarithmic x axis (non-positive x values are dropped).
    pub x_log: bool,
    /// Logarithmic y axis (non-positive y values are dropped).
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
    /// are); points outside are dropped like non-finite ones.
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
            return (f64::MIN_POSITIVE, LIMIT);
        }
        ((top * 1e-290).max(f64::MIN_POSITIVE), LIMIT)
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
            (lo / 1.5, hi * 1.5)
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

    /// Renders the chart as a standalone SVG document (800 x 500).
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
            .caption(&self.title, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(80);
        // The four scale combinations are different types in plotters.
        match (self.x_log, self.y_log) {
            (false, false) => {
                let chart = builder
                    .build_cartesian_2d(x.0..x.1, y.0..y.1)
                    .map_err(|e| e.to_string())?;
                self.fill(chart, drawable)
            }
            (true, false) => {
                let chart = builder
                    .build_cartesian_2d((x.0..x.1).log_scale(), y.0..y.1)
                    .map_err(|e| e.to_string())?;
                self.fill(chart, drawable)
            }
            (false, true) => {
                let chart = builder
                    .build_cartesian_2d(x.0..x.1, (y.0..y.1).log_scale())
                    .map_err(|e| e.to_string())?;
                self.fill(chart, drawable)
            }
            (true, true) => {
                let chart = builder
                    .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())
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
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .x_label_formatter(&|v| short(*v))
            .y_label_formatter(&|v| short(*v))
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, (s, points)) in self.series.iter().zip(drawable).enumerate() {
            let color = COLORS[i % COLORS.len()].to_rgba();
            let drawn = match s.style {
                Style::Line => chart
                    .draw_series(LineSeries::new(points, color.stroke_width(2)))
                    .map_err(|e| e.to_string())?,
                Style::Reference => chart
                    .draw_series(LineSeries::new(points, color.stroke_width(1)))
                    .map_err(|e| e.to_string())?,
                Style::Points => chart
                    .draw_series(
                        points
                            .into_iter()
                            .map(|p| Circle::new(p, 3, color.filled())),
                    )
                    .map_err(|e| e.to_string())?,
            };
            drawn.label(s.label.as_str()).legend(move |(x, y)| {
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

/// Compact tick labels: `1e-16`, `0.25`, `1000`.
fn short(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1e4 || v.abs() < 1e-3 {
        format!("{v:.0e}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
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
