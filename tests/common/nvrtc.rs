//! The CI contract of the tests that need NVRTC (and, for tests/accessor_sass.rs,
//! cuobjdump): what `scripts/install-cuda-nvrtc.sh` installs must be there, and a
//! test without it FAILS, saying what to do, unless `BOUNDGATE_SKIP_NVRTC=1` asks
//! to skip it explicitly.

use boundgate::gpu::nvrtc;

/// The variable that lets a test without NVRTC skip instead of failing.
pub const SKIP_ENV: &str = "BOUNDGATE_SKIP_NVRTC";

/// True when nothing is `missing`. Otherwise false, printing why, when
/// `BOUNDGATE_SKIP_NVRTC=1`; else the test fails with `missing` and what to do.
pub fn present_or_skip(missing: Option<String>) -> bool {
    let Some(missing) = missing else {
        return true;
    };
    if std::env::var(SKIP_ENV).is_ok_and(|v| v == "1") {
        println!("SKIPPED ({SKIP_ENV}=1): {missing}");
        return false;
    }
    panic!(
        "{missing}\nRun scripts/install-cuda-nvrtc.sh (part of the CI contract) and export what it \
         prints, or set {SKIP_ENV}=1 to skip this test explicitly."
    );
}

/// True when NVRTC loads (its version and the include folders printed);
/// otherwise as [`present_or_skip`].
pub fn nvrtc_available() -> bool {
    match nvrtc::version() {
        Ok((major, minor)) => {
            println!(
                "NVRTC {major}.{minor}, include folders {:?}",
                boundgate::gpu::include_dirs()
            );
            true
        }
        Err(error) => present_or_skip(Some(format!("NVRTC is not available: {error}"))),
    }
}
