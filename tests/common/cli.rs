//! Running the `boundgate` binary from the end-to-end tests: a scratch folder
//! per test, the command, its output as text, `.npy` inputs, and the
//! bad-input contract (exit code 2, one line on stderr).

use boundgate::io::{Tensor, write_npy};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A folder for `test` under the system's temporary folder, named after the
/// test binary and the process, so parallel runs do not share files.
pub fn workdir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "boundgate-{}-{}-{test}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the `boundgate` binary built for these tests.
pub fn boundgate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boundgate"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Its standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Its standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Writes `t` as `dir/name` (.npy) and returns the path as an argument.
pub fn save(dir: &Path, name: &str, t: &Tensor) -> String {
    let p = dir.join(name);
    write_npy(&p, t).unwrap();
    p.to_str().unwrap().to_string()
}

/// Writes `text` as `dir/name` (a plan or a report, say) and returns its
/// path.
pub fn write_text(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A path as an argument.
pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes `bytes` as `dir/name` (a hand-made `.npy` file, say) and returns
/// the path as an argument.
pub fn save_bytes(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

/// Writes a vector as `dir/name` (.npy) and returns the path.
pub fn vector(dir: &Path, name: &str, values: &[f64]) -> String {
    save(dir, name, &Tensor::vector(values.to_vec()))
}

/// Runs `boundgate run dot-recursive --input x=X --input y=Y --output OUTPUT`
/// followed by `extra` (the files as given: `y = ""` passes `y=`).
pub fn run_dot(x: &str, y: &str, output: &str, extra: &[&str]) -> Output {
    let (x, y) = (format!("x={x}"), format!("y={y}"));
    let mut args = vec![
        "run",
        "dot-recursive",
        "--input",
        &x,
        "--input",
        &y,
        "--output",
        output,
    ];
    args.extend_from_slice(extra);
    boundgate(&args)
}

/// Exit code 2 and exactly one line on stderr, containing `needle`.
pub fn assert_bad_input(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err}"
    );
    assert!(err.contains(needle), "`{needle}` not in: {err}");
}
