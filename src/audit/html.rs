//! A self-contained HTML report: one file, inline CSS and inline SVG charts,
//! no scripts and no network, so it opens offline and can be archived as a
//! CI artifact.
//!
//! It shows the provenance (versions, device, seeds), the totals, the
//! tightness of every kernel's rigorous bound (largest observed error over
//! bound per cell, against the problem size), the cell table, every violation
//! and unmet hypothesis, and each experiment's findings, tables and charts.

use super::experiment::Table;
use super::report::AuditReport;
use crate::error::Result;
use crate::plot::{Chart, Series};
use std::fmt::Write as _;

/// Escapes text for HTML.
pub(crate) fn html(text: &str) -> String {
    escape_markup(text, false)
}

/// Escapes text for HTML or XML (with `apostrophe`, for attributes quoted
/// either way): `& < > "` as entities; control characters other than tab,
/// newline and carriage return, and the noncharacters U+FFFE/U+FFFF, which
/// neither allows even escaped, as spaces (a plan named "a\u{FFFF}" gave
/// malformed XML; ESC and NUL reached the HTML: review, 2026-11-26).
pub(crate) fn escape_markup(text: &str, apostrophe: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' if apostrophe => out.push_str("&apos;"),
            c if crate::plot::markup_forbidden(c) => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}\
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}\
table{border-collapse:collapse;margin:1em 0;font-size:.85em}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}\
th{background:#f0f0f0}tr.violation td{background:#fdd}.pass{color:#060}.fail{color:#b00;font-weight:bold}\
.meta{color:#555;font-size:.9em}.chart svg{max-width:100%;height:auto}.finding{background:#fff6d5;padding:.3em .6em;margin:.3em 0}";

/// The tightness chart: per kernel, the largest observed error / rigorous
/// bound of each cell against its size (log-log; 1 is the bound itself).
///
/// # Example
/// ```
/// use boundgate::audit::html::tightness_chart;
/// use boundgate::audit::{Plan, RunOptions, run_plan};
/// use std::path::Path;
/// let text = "name = \"doc\"\nseeds = { first = 1, count = 2 }\ncampaign = [{ kernel = \"dot-recursive\", sizes = [8, 64], params = { format = [\"fp16\"] }, distributions = [{ kind = \"uniform\", low = -1.0, high = 1.0 }] }]";
/// let mut report = run_plan(&Plan::from_toml(text, Path::new("doc.toml")).unwrap(), RunOptions::default()).unwrap();
/// let chart = tightness_chart(&report).unwrap();
/// // one point per cell, (size, largest error / rigorous bound), then the line at ratio 1
/// let ratios: Vec<(f64, f64)> = report.cells.iter().map(|c| (c.size as f64, c.bounds[0].max_ratio.unwrap())).collect();
/// assert_eq!((chart.series[0].label.as_str(), &chart.series[0].points), ("dot-recursive", &ratios));
/// assert_eq!(chart.series[1].points, [(8.0, 1.0), (64.0, 1.0)]);
/// assert!(chart.x_log && chart.y_log);
/// // no ratio to draw: no chart
/// report.cells.iter_mut().for_each(|c| c.bounds[0].max_ratio = None);
/// assert!(tightness_chart(&report).is_none());
/// ```
pub fn tightness_chart(report: &AuditReport) -> Option<Chart> {
    let mut kernels: Vec<&str> = Vec::new();
    for c in &report.cells {
        if !kernels.contains(&c.kernel.as_str()) {
            kernels.push(&c.kernel);
        }
    }
    let mut chart = Chart::new(
        "Tightness of the rigorous bounds (largest error / bound per cell)",
        "problem size n",
        "observed error / rigorous bound",
    )
    .log_x()
    .log_y();
    let mut any = false;
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for k in kernels {
        let points: Vec<(f64, f64)> = report
            .cells
            .iter()
            .filter(|c| c.kernel == k)
            .filter_map(|c| {
                let r = c.bounds.iter().find(|b| b.gating)?.max_ratio?;
                (r > 0.0 && r.is_finite()).then_some((c.size as f64, r))
            })
            .collect();
        if points.is_empty() {
            continue;
        }
        for &(x, _) in &points {
            lo = lo.min(x);
            hi = hi.max(x);
        }
        any = true;
        chart = chart.with(Series::points(k, points));
    }
    any.then(|| {
        chart.with(Series::reference(
            "bound (ratio 1)",
            vec![(lo, 1.0), (hi.max(lo * 2.0), 1.0)],
        ))
    })
}

fn table_html(out: &mut String, title: Option<&str>, headers: &[String], rows: &[Vec<String>]) {
    if let Some(t) = title {
        let _ = writeln!(out, "<h4>{}</h4>", html(t));
    }
    out.push_str("<table><thead><tr>");
    for h in headers {
        let _ = write!(out, "<th>{}</th>", html(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        for cell in r {
            let _ = write!(out, "<td>{}</td>", html(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
}

fn experiment_table(out: &mut String, t: &Table) {
    table_html(out, Some(&t.title), &t.headers, &t.rows);
}

/// Inline SVG (without an XML declaration, which HTML does not allow there).
fn inline_svg(chart: &Chart) -> Result<String> {
    let svg = chart.to_svg()?;
    Ok(match svg.find("<svg") {
        Some(start) => svg[start..].to_string(),
        None => svg,
    })
}

/// The report as one self-contained HTML page.
///
/// # Example
/// ```no_run
/// let plan = boundgate::audit::Plan::default_plan().unwrap();
/// let report = boundgate::audit::run_plan(&plan, Default::default()).unwrap();
/// let page = boundgate::audit::html::to_html(&report).unwrap();
/// std::fs::write("report.html", page).unwrap();
/// ```
pub fn to_html(report: &AuditReport) -> Result<String> {
    let mut out = String::new();
    let title = format!("boundgate audit: {}", report.plan);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n<p>{}</p>\n",
        html(&title),
        html(&title),
        html(&report.description)
    );
    let env = &report.environment;
    let _ = writeln!(
        out,
        "<p class=\"meta\">boundgate {} · commit {} · checker {} · MPFR {} · GMP {} · {} · {} · device: {}<br>schema {} · plan digest {} · seeds {}..={} · confidence {}{} · {:.1} s</p>",
        html(&env.boundgate),
        html(env.commit_label()),
        html(&env.boundgate_verify),
        html(&env.mpfr),
        html(&env.gmp),
        html(&env.rustc),
        html(&env.target),
        html(&env.device),
        html(&report.schema),
        html(&report.plan_digest),
        report.seeds.first,
        report.seeds.last(),
        report.confidence,
        report
            .shard
            .map(|s| format!(" · shard {s}"))
            .unwrap_or_default(),
        report.timings.total_seconds
    );
    let t = &report.totals;
    // The strict gate decides the wording: "every rigorous bound held" next
    // to 20 non-finite verdicts read as a pass that `--strict` fails
    // (review of 2026-11-25).
    let class = match report.strict_exit_code() {
        crate::error::ExitCode::Ok | crate::error::ExitCode::Unjudged => "pass",
        _ => "fail",
    };
    let verdict = format!("<span class=\"{class}\">{}</span>", report.verdict_text());
    let _ = writeln!(
        out,
        "<h2>Verdict</h2>\n<p>{verdict}. {} cells, {} trials; rigorous bounds: {} pass, {} violated, {} undecided, {} hypothesis not met, {} non-finite. \
         Findings: {}; {} experiments ({} rigorous violations, {} findings).</p>",
        t.cells,
        t.trials,
        t.rigorous.pass,
        t.rigorous.violation,
        t.rigorous.undecided,
        t.rigorous.hypothesis_not_met,
        t.rigorous.non_finite,
        report.findings_summary(),
        t.experiments,
        t.experiment_violations,
        t.experiment_findings
    );
    if let Some(chart) = tightness_chart(report) {
        let _ = writeln!(
            out,
            "<h2>Tightness</h2>\n<div class=\"chart\">{}</div>",
            inline_svg(&chart)?
        );
    }
    if !report.cells.is_empty() {
        out.push_str("<h2>Cells</h2>\n");
        let (headers, rows) = report.rows();
        let headers: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
        table_html(&mut out, None, &headers, &rows);
        out.push_str("<h2>Violations and unmet hypotheses</h2>\n<ul>\n");
        for c in &report.cells {
            for b in &c.bounds {
                if b.first_violation.is_none()
                    && b.first_undecided.is_none()
                    && b.hypothesis_reasons.is_empty()
                {
                    continue;
                }
                let class = if b.gating && b.counts.violation > 0 {
                    " class=\"fail\""
                } else {
                    ""
                };
                let _ = write!(
                    out,
                    "<li{class}>{} [{}]",
                    html(&c.describe()),
                    html(&b.label)
                );
                if let Some(v) = &b.first_violation {
                    let _ = write!(
                        out,
                        ": {} of {} trials violate; first: {}",
                        b.counts.violation,
                        c.trials,
                        html(v)
                    );
                }
                if let Some(u) = &b.first_undecided {
                    let _ = write!(
                        out,
                        "; {} of {} trials undecided (the oracle's enclosure straddles the bound); first: {}",
                        b.counts.undecided,
                        c.trials,
                        html(u)
                    );
                }
                for r in &b.hypothesis_reasons {
                    let _ = write!(out, "; hypothesis not met: {}", html(r));
                }
                out.push_str("</li>\n");
            }
        }
        out.push_str("</ul>\n");
    }
    for e in report.experiments.iter().map(|x| &x.report) {
        let _ = writeln!(
            out,
            "<h2>Experiment <code>{}</code>: {}</h2>\n<p>{}</p>\n<p>Rigorous-bound violations: {}.</p>",
            html(&e.name),
            html(&e.title),
            html(&e.description),
            e.rigorous_violations
        );
        for f in &e.findings {
            let _ = writeln!(out, "<p class=\"finding\"><b>Finding:</b> {}</p>", html(f));
        }
        for t in &e.tables {
            experiment_table(&mut out, t);
        }
        for chart in &e.charts {
            let _ = writeln!(out, "<div class=\"chart\">{}</div>", inline_svg(chart)?);
        }
    }
    out.push_str("</body></html>\n");
    Ok(out)
}
