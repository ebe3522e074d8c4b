//! Every registered kernel against its own rigorous bound, on arbitrary
//! inputs and configurations: the first byte picks the kernel, the second the
//! size, the third its configuration (0: the defaults; otherwise every
//! word-valued and boolean parameter is drawn, e.g. qdot's `binning`, `fexp`
//! and `half`), the rest are the input values (any finite f64, so every
//! exponent range, subnormals and overflow edges are reachable). A kernel may refuse an input with a typed
//! error or report "hypothesis not met"; it must never panic and its rigorous
//! bound must never be violated.
#![no_main]

use boundgate::io::Tensor;
use boundgate::kernels::{Inputs, Kernel, ParamKind, Params, registry};
use boundgate_verify::check::Outcome;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [pick, size, knobs, rest @ ..] = data else { return };
    let kernels = registry::all();
    let kernel = kernels[usize::from(*pick) % kernels.len()];
    let size = 1 + usize::from(*size % 16);
    let mut values = rest
        .chunks_exact(8)
        .map(|c| f64::from_bits(u64::from_le_bytes(c.try_into().unwrap())))
        .filter(|v| v.is_finite());
    let mut inputs = Inputs::new();
    for (name, shape) in kernel.audit_shapes(size) {
        let len: usize = shape.iter().product();
        let v: Vec<f64> = (0..len).map(|_| values.next().unwrap_or(0.5)).collect();
        let tensor = match shape[..] {
            [_] => Tensor::vector(v),
            [r, c] => match Tensor::matrix(r, c, v) {
                Ok(t) => t,
                Err(_) => return,
            },
            _ => return,
        };
        inputs.insert(name.to_string(), tensor);
    }
    let params = configuration(kernel, *knobs);
    let Ok(run) = kernel.run(&inputs, &params) else { return };
    let Ok(verdicts) = run.verdicts() else { return };
    if let Outcome::Violation { element, error, bound } = &verdicts[0].verdict.outcome {
        panic!(
            "{}: rigorous bound violated at element {element}: error {error:e} > bound {bound:e}; inputs {inputs:?}",
            kernel.name()
        );
    }
});

/// The defaults for `knobs = 0`; otherwise each word-valued or boolean
/// parameter drawn from a small generator seeded by `knobs`. Left alone: the
/// backend (the fuzzer has no device), mpfma-gemm's `reduction` (for the
/// vendor backends only) and `kernel` (for our GPU kernels only), both refused
/// on the model, so a drawn value would drop the input unrun, and HotSpot3D's `oracle`, whose `exact`
/// choice runs 500 iterations in rational arithmetic: seconds per input in a
/// release build (10 MB), and in the sanitized fuzz build GMP's allocations
/// overran libFuzzer's 2 GB limit (2026-11-25). `tests/interleave_apps.rs`
/// tests that oracle.
fn configuration(kernel: &'static dyn Kernel, knobs: u8) -> Params {
    let mut params = Params::defaults(kernel);
    if knobs == 0 {
        return params;
    }
    let mut state = u32::from(knobs) | 0x9e37_7900;
    let mut next = move || {
        // xorshift32: enough to spread one byte over a few parameters.
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as usize
    };
    for spec in kernel
        .params()
        .iter()
        .filter(|s| !matches!(s.key, "backend" | "reduction" | "kernel" | "oracle"))
    {
        let pick = |words: &[&'static str], r: usize| words[r % words.len()];
        let value = match spec.kind {
            ParamKind::Choice(words) => pick(words, next()),
            ParamKind::Bool => pick(&["true", "false"], next()),
            ParamKind::Format => pick(&FORMATS, next()),
            ParamKind::Mode => pick(&["rne", "rtz", "rup", "rdn"], next()),
            // Small counts (tile sizes, block sizes, iterations): the edges
            // 0 and 1 and a few shapes that do not divide the inputs.
            ParamKind::Count => pick(&["0", "1", "2", "3", "5", "16"], next()),
            // Probabilities and qdot's tolerance: coarse, fine and extreme.
            ParamKind::Probability => pick(&["0.5", "0.9", "0.999999", "1e-3", "1e-8", "1e-300"], next()),
        };
        // A value its parameter refuses keeps the default (the kernel's own
        // refusals of valid-looking values are what is being fuzzed).
        let _ = params.set(kernel, spec.key, value);
    }
    params
}

/// Every format name the CLI accepts.
const FORMATS: [&str; 7] = ["fp64", "fp32", "tf32", "bf16", "fp16", "e4m3", "e5m2"];
