//! The .npy reader on arbitrary bytes (hostile headers, huge shapes,
//! truncated data): a typed error naming the file or a tensor whose data
//! matches its shape, never a panic or a huge allocation.
#![no_main]

use boundgate::io::read_npy;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let path = std::env::temp_dir().join(format!("boundgate-fuzz-{}.npy", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    match read_npy(&path) {
        Ok(t) => assert_eq!(t.data().len(), t.shape().iter().product::<usize>()),
        Err(e) => assert!(e.to_string().contains("boundgate-fuzz-"), "{e}"),
    }
});
