//! Records, for the provenance section of audit reports, the compiler version
//! and the commit the binary was built from (with `-dirty` when tracked files
//! differ from it; `unknown` outside a git checkout, e.g. a packaged crate).

use std::process::Command;

fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout)
        .ok()
        .map(|s| s.trim().to_string())
}

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = output(&rustc, &["-V"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=BOUNDGATE_RUSTC={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rerun-if-changed=build.rs");

    let commit = output("git", &["rev-parse", "--short=12", "HEAD"]);
    let commit = match commit {
        Some(hash) if !hash.is_empty() => {
            // Tracked files only: build outputs and scratch files are not the
            // source. `git diff --quiet` exits 1 when they differ.
            let dirty = Command::new("git")
                .args(["diff", "--quiet", "HEAD", "--"])
                .status()
                .map(|s| s.code() == Some(1))
                .unwrap_or(false);
            if dirty { format!("{hash}-dirty") } else { hash }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=BOUNDGATE_COMMIT={commit}");
    // Rerun when HEAD moves (a commit, a checkout), when the index changes,
    // and when anything compiled into the binary changes (cargo scans these
    // folders), so that `-dirty` follows edits; the git paths come from git,
    // so worktrees work too.
    for path in ["src", "kernels", "verify/src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(dir) = output("git", &["rev-parse", "--git-dir"]) {
        for file in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={dir}/{file}");
        }
        if let Some(head_ref) = output("git", &["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head_ref}");
        }
    }
}
