//! Review of the report charts (src/plot.rs), 2026-11-29: tick labels of
//! log and linear axes at the edges of their ranges, and the text of a
//! chart in its SVG.

use boundgate::plot::{Chart, Series};

/// A `<text>` element of an SVG: its attributes and its content.
struct Text {
    attributes: String,
    content: String,
}

fn texts(svg: &str) -> Vec<Text> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let open = t.find('>').expect("a text element");
            let close = t.find("</text>").expect("a closed text element");
            Text {
                attributes: t[..open].to_string(),
                content: t[open + 1..close].trim().to_string(),
            }
        })
        .collect()
}

fn attribute(text: &Text, name: &str) -> f64 {
    let key = format!(" {name}=\"");
    let start = text.attributes.find(&key).expect("the attribute") + key.len();
    let end = start + text.attributes[start..].find('"').unwrap();
    text.attributes[start..end].parse().unwrap()
}

/// The tick labels of the y axis (right-aligned left of it), as
/// (label, pixel row), top to bottom.
fn y_ticks(svg: &str) -> Vec<(String, f64)> {
    texts(svg)
        .into_iter()
        .filter(|t| t.attributes.contains("text-anchor=\"end\""))
        .map(|t| (t.content.clone(), attribute(&t, "y")))
        .collect()
}

/// The tick labels of the x axis (centred below it), as (label, pixel
/// column), left to right: centred, unrotated, below the title.
fn x_ticks(svg: &str) -> Vec<(String, f64)> {
    texts(svg)
        .into_iter()
        .filter(|t| {
            t.attributes.contains("text-anchor=\"middle\"")
                && t.attributes.contains("dy=\"0.76em\"")
                && !t.attributes.contains("transform")
                && attribute(t, "y") > 100.0
        })
        .map(|t| (t.content.clone(), attribute(&t, "x")))
        .collect()
}

/// Checks an axis's tick labels: at least two, distinct, numbers, placed
/// in order, and where the scale puts them (log10 of the value, or the
/// value, linear in the pixel position, to 2 px): `increasing` when larger
/// values have larger pixel coordinates (x), not (y).
/// (A tick drawn twice, label and place alike, counts once: around 1e15,
/// plotters' ticks 0.1 apart round to binary64 values 0.125 apart.)
fn check_ticks(case: &str, ticks: &[(String, f64)], log: bool, increasing: bool) {
    let mut ticks = ticks.to_vec();
    ticks.dedup();
    let ticks = &ticks[..];
    assert!(ticks.len() >= 2, "{case}: tick labels {ticks:?}");
    let mut seen: Vec<&str> = ticks.iter().map(|(l, _)| l.as_str()).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), ticks.len(), "{case}: repeated labels {ticks:?}");
    let scaled: Vec<(f64, f64)> = ticks
        .iter()
        .map(|(label, pixel)| {
            let v: f64 = label
                .parse()
                .unwrap_or_else(|_| panic!("{case}: label {label:?} is not a number"));
            assert!(!log || v > 0.0, "{case}: {v} on a log axis");
            (if log { v.log10() } else { v }, *pixel)
        })
        .collect();
    let mut sorted = scaled.clone();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in sorted.windows(2) {
        assert!(
            (w[1].1 > w[0].1) == increasing,
            "{case}: labels out of order {ticks:?}"
        );
    }
    // The labels are where their values are: pixel linear in the scaled
    // value, through the first and last label.
    let (first, last) = (sorted[0], sorted[sorted.len() - 1]);
    for &(v, p) in &sorted {
        let expected = first.1 + (v - first.0) / (last.0 - first.0) * (last.1 - first.1);
        assert!(
            (p - expected).abs() <= 2.0,
            "{case}: label at {v} drawn at {p}, expected {expected}: {ticks:?}"
        );
    }
}

/// Log axes whose range holds no power of ten, or only values below
/// 2.2e-16 (fp64 relative errors), had no tick label at all: plotters'
/// log scale labels powers of ten only, and drops those below
/// f64::EPSILON as if they were zero. Positive subnormal values were not
/// drawn, though only non-positive ones are documented as dropped.
#[test]
fn log_axes_label_their_ticks_whatever_the_range() {
    let cases: [(&str, Vec<(f64, f64)>); 9] = [
        // subnormal values are positive: drawn (they were dropped)
        ("subnormal", vec![(1.0, 5e-324), (2.0, 1e-310)]),
        ("the smallest subnormal", vec![(1.0, 5e-324)]),
        // tightness ratios of one kernel: 0.13 .. 0.75 after padding
        ("ratios 0.2..0.5", vec![(1.0, 0.2), (2.0, 0.5)]),
        ("fp64 errors", vec![(1.0, 1e-20), (2.0, 1e-17)]),
        ("one fp64 error", vec![(1.0, 3e-18)]),
        ("decades", vec![(1.0, 1e-10), (2.0, 1e-3)]),
        ("smallest normal", vec![(1.0, f64::MIN_POSITIVE)]),
        ("wide", vec![(1.0, 1e-280), (2.0, 1e5)]),
        ("near the top", vec![(1.0, 1e299), (2.0, 1e300)]),
    ];
    for (case, points) in &cases {
        let chart = Chart::new("t", "x", "y")
            .log_y()
            .with(Series::points("p", points.clone()));
        let svg = chart.to_svg().unwrap();
        assert_eq!(svg, chart.to_svg().unwrap(), "{case}: deterministic");
        assert_eq!(svg.matches("<circle").count(), points.len(), "{case}");
        check_ticks(case, &y_ticks(&svg), true, false);
        // The same values on a log x axis.
        let swapped: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (y, x)).collect();
        let svg = Chart::new("t", "x", "y")
            .log_x()
            .with(Series::points("p", swapped))
            .to_svg()
            .unwrap();
        check_ticks(case, &x_ticks(&svg), true, true);
    }
    // A point drawn at a labelled value is drawn at its label.
    let svg = Chart::new("t", "x", "y")
        .log_y()
        .with(Series::points("p", vec![(1.0, 1e-20), (2.0, 1e-17)]))
        .to_svg()
        .unwrap();
    let rows: Vec<f64> = svg
        .split("<circle")
        .skip(1)
        .map(|c| {
            let start = c.find(" cy=\"").unwrap() + 5;
            c[start..start + c[start..].find('"').unwrap()]
                .parse()
                .unwrap()
        })
        .collect();
    let ticks = y_ticks(&svg);
    for (value, row) in [("1e-20", rows[0]), ("1e-17", rows[1])] {
        let tick = ticks.iter().find(|(l, _)| l == value).expect("labelled");
        assert!((tick.1 - row).abs() <= 1.0, "{value}: {tick:?} vs {row}");
    }
    // Problem sizes 16, 32, 64 on the tightness chart's log x axis.
    let svg = Chart::new("t", "n", "ratio")
        .log_x()
        .log_y()
        .with(Series::points(
            "k",
            vec![(16.0, 0.1), (32.0, 0.2), (64.0, 0.3)],
        ))
        .to_svg()
        .unwrap();
    check_ticks("sizes 16..64", &x_ticks(&svg), true, true);
    check_ticks("ratios 0.1..0.3", &y_ticks(&svg), true, false);
}

/// Tick labels were printed to three decimals (or one significant digit
/// in exponent form) whatever the tick spacing: a linear axis over
/// [0.25, 0.2501] or around 1e15 labelled every tick alike; one over
/// [1e-18, 3e-18] had a single tick.
#[test]
fn linear_axis_tick_labels_tell_the_ticks_apart() {
    let cases: [(&str, Vec<(f64, f64)>); 8] = [
        ("0.25..0.2501", vec![(1.0, 0.25), (2.0, 0.2501)]),
        // a span under f64::EPSILON: plotters gave it one tick
        ("fp64 errors", vec![(1.0, 1e-18), (2.0, 3e-18)]),
        ("1e-300..2e-300", vec![(1.0, 1e-300), (2.0, 2e-300)]),
        ("1..1+1e-12", vec![(1.0, 1.0), (2.0, 1.0 + 1e-12)]),
        ("1e15..1e15+1", vec![(1.0, 1e15), (2.0, 1e15 + 1.0)]),
        ("one point at 1e300", vec![(1.0, 1e300)]),
        ("one point at -7", vec![(1.0, -7.0)]),
        ("0..1", vec![(1.0, 0.0), (2.0, 1.0)]),
    ];
    for (case, points) in &cases {
        let svg = Chart::new("t", "x", "y")
            .with(Series::points("p", points.clone()))
            .to_svg()
            .unwrap();
        check_ticks(case, &y_ticks(&svg), false, false);
    }
    // Compact labels where three decimals suffice: unchanged.
    let svg = Chart::new("t", "x", "y")
        .with(Series::points("p", vec![(1.0, 0.0), (2.0, 1.0)]))
        .to_svg()
        .unwrap();
    let labels: Vec<String> = y_ticks(&svg).into_iter().map(|(l, _)| l).collect();
    assert_eq!(
        labels,
        [
            "0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"
        ]
    );
}

/// Whether `c` may appear in an XML 1.0 document (escaped or not).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r')
        || (c >= ' ' && !c.is_control() && !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
}

/// plotters escapes `& < > " '` in text but writes control characters and
/// the noncharacters U+FFFE/U+FFFF as they are, which no XML document may
/// hold: a chart of a report read back by `merge` (its titles and labels
/// are the file's) gave an SVG file no browser opens, and put them in the
/// HTML page, which escapes its own text for this reason.
#[test]
fn chart_text_is_well_formed_svg_whatever_it_holds() {
    let svg = Chart::new("title a\u{1}b\u{FFFF} & <c>", "x\u{0}", "y\u{1b}[31m")
        .with(Series::points("s\u{7f}\u{FFFE} <&>", vec![(1.0, 1.0)]))
        .to_svg()
        .unwrap();
    let bad: Vec<char> = svg.chars().filter(|&c| !xml_char(c)).collect();
    assert!(bad.is_empty(), "characters XML does not allow: {bad:?}");
    assert!(svg.contains("title a b  &amp; &lt;c&gt;"), "{svg}");
    assert!(svg.contains("s   &lt;&amp;&gt;"), "{svg}");
}

/// A line (or reference) of one drawable point was a one-point polyline,
/// which draws nothing: the ECDF of an experiment run with one seed, or a
/// line whose other points are not drawable, vanished from its chart (its
/// legend entry stayed). It is drawn as a dot now; longer lines get none.
#[test]
fn a_line_of_one_point_is_drawn() {
    for series in [
        Series::line("one", vec![(1.0, 2.0)]),
        Series::reference("one", vec![(1.0, 2.0)]),
        Series::line(
            "one left",
            vec![(f64::NAN, 1.0), (1.0, 2.0), (3.0, f64::INFINITY)],
        ),
    ] {
        let style = series.style;
        let svg = Chart::new("t", "x", "y").with(series).to_svg().unwrap();
        assert_eq!(svg.matches("<circle").count(), 1, "{style:?}: {svg}");
    }
    let svg = Chart::new("t", "x", "y")
        .log_x()
        .with(Series::line("two", vec![(1.0, 2.0), (3.0, 4.0)]))
        .to_svg()
        .unwrap();
    assert_eq!(svg.matches("<circle").count(), 0);
    // The series' own polyline, in the first series colour (the mesh's are black).
    assert_eq!(
        svg.matches("<polyline fill=\"none\" opacity=\"1\" stroke=\"#D55E00\"")
            .count(),
        1
    );
}
