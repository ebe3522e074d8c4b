//! The HTML report renders in a real browser: headless Chromium takes a
//! screenshot of the report of tests/plans/product.toml, and the picture
//! must show text and the coloured marks of the inline SVG charts.
//!
//! Chromium comes from scripts/install-system-deps.sh (Debian packages
//! `chromium`, `fonts-dejavu-core`); scripts/test.sh sets
//! `BOUNDGATE_REQUIRE_CHROMIUM=1`, so in CI a missing browser fails the test.
//! Elsewhere, without a browser, the test says so and passes.

use boundgate::audit::{Plan, RunOptions, html, run_plan};
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BOUNDGATE_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("BOUNDGATE_REQUIRE_CHROMIUM").is_none(),
            "BOUNDGATE_REQUIRE_CHROMIUM is set but no chromium was found"
        );
        eprintln!("skipped: no chromium on PATH (scripts/install-system-deps.sh installs it)");
        return;
    };
    let plan =
        Plan::from_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plans/product.toml"))
            .unwrap();
    let report = run_plan(&plan, RunOptions::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("boundgate-screenshot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("report.html");
    std::fs::write(&page, html::to_html(&report).unwrap()).unwrap();
    let shot = dir.join("shot.png");
    let (width, height) = (1280u32, 1600u32);
    let output = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox", // CI runs as root
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            &format!("--user-data-dir={}", dir.join("profile").display()),
            &format!("--window-size={width},{height}"),
            &format!("--screenshot={}", shot.display()),
            &format!("file://{}", page.display()),
        ])
        .output()
        .expect("chromium starts");
    assert!(
        shot.is_file(),
        "no screenshot; chromium said: {}",
        String::from_utf8_lossy(&output.stderr)
    );

    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!((info.width, info.height), (width, height));
    let channels = info.color_type.samples();
    assert!(
        channels >= 3,
        "unexpected colour type {:?}",
        info.color_type
    );
    let pixels = buffer[..info.buffer_size()].chunks(channels);
    let (mut ink, mut coloured, mut total) = (0usize, 0usize, 0usize);
    for p in pixels {
        total += 1;
        let (r, g, b) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
        if r + g + b < 600 {
            ink += 1; // text, table rules, axes
        }
        if r.max(g).max(b) - r.min(g).min(b) > 80 {
            coloured += 1; // chart marks (Okabe-Ito palette) and the verdict colour
        }
    }
    let ink_share = ink as f64 / total as f64;
    assert!(
        ink_share > 0.01 && ink_share < 0.6,
        "the page looks blank or broken: {ink_share:.4} of the pixels are dark ({})",
        shot.display()
    );
    assert!(
        coloured > 500,
        "only {coloured} coloured pixels: the inline SVG charts did not render ({})",
        shot.display()
    );
}
