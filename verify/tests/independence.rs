//! The checker never depends on the code it checks (DESIGN.md, "the one rule
//! of the layout"): `boundgate-verify` must not name `boundgate` in any of its
//! dependency tables, nor refer to it in its sources.
//!
//! A normal dependency cycle would be refused by cargo anyway, but a
//! dev-dependency cycle would not; this test closes that gap.

use std::path::Path;

#[test]
fn verify_manifest_has_no_dependency_on_boundgate() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let mut tables: Vec<(&str, &toml::Table)> = Vec::new();
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(t) = doc.get(key).and_then(|v| v.as_table()) {
            tables.push((key, t));
        }
    }
    if let Some(targets) = doc.get("target").and_then(|v| v.as_table()) {
        for cfg in targets.values().filter_map(|v| v.as_table()) {
            for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
                if let Some(t) = cfg.get(key).and_then(|v| v.as_table()) {
                    tables.push((key, t));
                }
            }
        }
    }
    assert!(
        !tables.is_empty(),
        "verify has dependencies; the parse must have found them"
    );
    for (key, table) in tables {
        for (name, spec) in table {
            let package = spec.get("package").and_then(|p| p.as_str()).unwrap_or(name);
            assert_ne!(
                package, "boundgate",
                "verify/Cargo.toml [{key}] depends on boundgate"
            );
            if let Some(path) = spec.get("path").and_then(|p| p.as_str()) {
                let target = manifest
                    .parent()
                    .unwrap()
                    .join(path)
                    .canonicalize()
                    .unwrap();
                let root = manifest
                    .parent()
                    .unwrap()
                    .parent()
                    .unwrap()
                    .canonicalize()
                    .unwrap();
                assert_ne!(
                    target, root,
                    "verify/Cargo.toml [{key}] {name} points at the root crate"
                );
            }
        }
    }
}

// Built with concat! so that this file does not contain what it looks for.
const ROOT_PATH: &str = concat!("boundgate", "::");
const ROOT_EXTERN: &str = concat!("extern crate ", "boundgate;");

#[test]
fn verify_sources_do_not_use_the_root_crate() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![src.join("src"), src.join("tests"), src.join("benches")];
    let mut checked = 0;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (i, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap();
                    assert!(
                        !code.contains(ROOT_PATH) && !code.contains(ROOT_EXTERN),
                        "{}:{}: uses the root crate: {line}",
                        path.display(),
                        i + 1
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 5, "found only {checked} source files");
}
