//! The plan parser on arbitrary text: a typed error naming the file, or a
//! plan whose units and digest can be computed, never a panic.
#![no_main]

use boundgate::audit::Plan;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|text: &str| {
    match Plan::from_toml(text, Path::new("fuzz.toml")) {
        Ok(plan) => {
            let _ = plan.units();
            let _ = plan.digest();
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.toml"), "{e}"),
    }
});
