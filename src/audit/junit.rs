//! JUnit XML, so that CI systems (GitLab, Jenkins, GitHub test reporters)
//! show each check.
//!
//! One `<testsuite>` per kernel and one for the experiments. Each cell is a
//! `<testcase>`: it *fails* when its rigorous bound was violated (the same
//! condition as exit code 1), is *skipped* when some trial was undecided or
//! no trial gave a rigorous pass (every trial's hypothesis failed or its
//! exact result was not finite), and otherwise passes. Rigorous verdicts that
//! were not judged (undecided, hypothesis not met, non-finite: what makes
//! `--strict` exit 3) are counted in the case's `<system-out>`, so a cell the
//! strict gate fails is never a silent pass. Findings about published bounds
//! (violations, inconsistent probabilistic claims) go there too: they are
//! evidence, not failures.

use super::report::{AuditReport, BoundSummary, CellReport};
use std::fmt::Write as _;

/// Escapes text for XML attributes and content.
fn xml(text: &str) -> String {
    super::html::escape_markup(text, true)
}

fn case_name(c: &CellReport) -> String {
    let params: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{} n={} {}", params.join(" "), c.size, c.distribution)
}

fn findings(bounds: &[BoundSummary]) -> Vec<String> {
    let mut out = Vec::new();
    for b in bounds.iter().filter(|b| !b.gating) {
        if let Some(v) = &b.first_violation {
            let c = b.violation_causes;
            out.push(format!(
                "[{}] {} violations ({} possible overflow, {} within the rigorous model, {} unexplained); first: {v}",
                b.label, b.counts.violation, c.overflow, c.model_gap, c.unexplained
            ));
        }
        if let Some(s) = b.statistics.as_ref().and_then(|s| s.statistics.as_ref())
            && !s.consistent
        {
            out.push(format!(
                "[{}] {} violations in {} trials: inconsistent with p >= {} (p-value {:.3e})",
                b.label, s.violations, s.trials, s.claimed_probability, s.p_value
            ));
        }
        if let Some(s) = b.statistics.as_ref().and_then(|s| s.per_element.as_ref())
            && !s.consistent
        {
            out.push(format!(
                "[{}] {} of {} elements violate in {} trials: inconsistent with p >= {} per element (Hoeffding p-value <= {:.3e})",
                b.label, s.violating, s.elements, s.trials, s.claimed_probability, s.p_value_bound
            ));
        }
    }
    out
}

/// The rigorous verdicts of a cell that were not judged (what `--strict`
/// fails on), as a note, or `None` when every trial was judged.
fn unjudged(b: &BoundSummary) -> Option<String> {
    let k = &b.counts;
    (k.not_judged() > 0).then(|| {
        format!(
            "[{}] not judged (--strict fails): {} undecided, {} hypothesis not met, {} non-finite",
            b.label, k.undecided, k.hypothesis_not_met, k.non_finite
        )
    })
}

/// The report as JUnit XML.
///
/// # Example
/// ```no_run
/// let plan = boundgate::audit::Plan::default_plan().unwrap();
/// let report = boundgate::audit::run_plan(&plan, Default::default()).unwrap();
/// let xml = boundgate::audit::junit::to_junit(&report);
/// assert!(xml.starts_with("<?xml"));
/// ```
pub fn to_junit(report: &AuditReport) -> String {
    let mut kernels: Vec<&str> = report.cells.iter().map(|c| c.kernel.as_str()).collect();
    let mut seen = Vec::new();
    kernels.retain(|k| {
        let new = !seen.contains(k);
        seen.push(*k);
        new
    });
    let mut suites = String::new();
    let (mut tests, mut failures, mut skipped) = (0usize, 0usize, 0usize);
    for kernel in kernels {
        let mut cases = String::new();
        let (mut t, mut f, mut s) = (0, 0, 0);
        for c in report.cells.iter().filter(|c| c.kernel == kernel) {
            t += 1;
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{}\" name=\"{}\">",
                xml(kernel),
                xml(&case_name(c))
            );
            let rigorous = c.bounds.iter().find(|b| b.gating);
            match rigorous {
                Some(b) if b.counts.violation > 0 => {
                    f += 1;
                    let _ = writeln!(
                        cases,
                        "      <failure type=\"bound-violation\" message=\"{}: {} of {} trials violate the rigorous bound\">{}</failure>",
                        xml(&b.label),
                        b.counts.violation,
                        c.trials,
                        xml(b.first_violation.as_deref().unwrap_or(""))
                    );
                }
                Some(b) if b.counts.undecided > 0 => {
                    s += 1;
                    let _ = writeln!(
                        cases,
                        "      <skipped message=\"{} of {} trials undecided (the oracle's enclosure straddles the bound); first: {}\"/>",
                        b.counts.undecided,
                        c.trials,
                        xml(b.first_undecided.as_deref().unwrap_or(""))
                    );
                }
                Some(b) if b.counts.pass == 0 && b.counts.hypothesis_not_met > 0 => {
                    s += 1;
                    let _ = writeln!(
                        cases,
                        "      <skipped message=\"hypothesis not met: {}\"/>",
                        xml(&b.hypothesis_reasons.join("; "))
                    );
                }
                // No rigorous pass at all (every exact result non-finite):
                // nothing was checked, so not a pass (review of 2026-11-25).
                Some(b) if b.counts.pass == 0 => {
                    s += 1;
                    let _ = writeln!(
                        cases,
                        "      <skipped message=\"no rigorous verdict: {} of {} trials had a non-finite exact result\"/>",
                        b.counts.non_finite, c.trials
                    );
                }
                None => {
                    s += 1;
                    let _ = writeln!(cases, "      <skipped message=\"no rigorous bound\"/>");
                }
                _ => {}
            }
            let mut notes = findings(&c.bounds);
            if let Some(note) = rigorous.and_then(unjudged) {
                notes.insert(0, note);
            }
            if !notes.is_empty() {
                let _ = writeln!(
                    cases,
                    "      <system-out>{}</system-out>",
                    xml(&notes.join("\n"))
                );
            }
            cases.push_str("    </testcase>\n");
        }
        let _ = write!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{t}\" failures=\"{f}\" errors=\"0\" skipped=\"{s}\">\n{cases}  </testsuite>\n",
            xml(kernel)
        );
        tests += t;
        failures += f;
        skipped += s;
    }
    if !report.experiments.is_empty() {
        let mut cases = String::new();
        let mut f = 0;
        for e in report.experiments.iter().map(|x| &x.report) {
            let _ = writeln!(
                cases,
                "    <testcase classname=\"experiments\" name=\"{}\">",
                xml(&e.name)
            );
            if e.rigorous_violations > 0 {
                f += 1;
                let _ = writeln!(
                    cases,
                    "      <failure type=\"bound-violation\" message=\"{} rigorous-bound violations\"/>",
                    e.rigorous_violations
                );
            }
            if !e.findings.is_empty() {
                let _ = writeln!(
                    cases,
                    "      <system-out>{}</system-out>",
                    xml(&e.findings.join("\n"))
                );
            }
            cases.push_str("    </testcase>\n");
        }
        let n = report.experiments.len();
        let _ = write!(
            suites,
            "  <testsuite name=\"experiments\" tests=\"{n}\" failures=\"{f}\" errors=\"0\" skipped=\"0\">\n{cases}  </testsuite>\n"
        );
        tests += n;
        failures += f;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"boundgate audit: {}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n{suites}</testsuites>\n",
        xml(&report.plan)
    )
}

#[cfg(test)]
mod tests {
    use super::xml;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            xml("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt; "
        );
        assert_eq!(xml("a\u{FFFF}b\u{FFFE}"), "a b ");
    }
}
