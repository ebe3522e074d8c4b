fn main() {
    // Rust ignores SIGPIPE, so a print to a closed pipe (`boundgate audit |
    // head`) panicked with exit 101 (review, 2026-11-25). Restored to the
    // default, the process ends quietly like other Unix tools.
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(boundgate::cli::main());
}
