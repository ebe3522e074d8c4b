//! `key=value` kernel parameters, validated against the kernel's spec.

use super::{Kernel, ParamKind, ParamSpec};
use crate::error::{Error, Result};
use boundgate_verify::format::{Format, RoundingMode};
use std::collections::BTreeMap;
use std::str::FromStr;

/// Parameters of one kernel run: the given ones over the kernel's defaults.
///
/// # Example
/// ```
/// use boundgate::kernels::{Params, registry};
/// let k = registry::find("dot-recursive").unwrap();
/// let p = Params::parse(k, &["format=fp16".to_string()]).unwrap();
/// assert_eq!(p.format("format").unwrap().name(), "fp16");
/// assert!(Params::parse(k, &["colour=blue".to_string()]).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Params {
    kernel: &'static str,
    values: BTreeMap<&'static str, String>,
}

impl Params {
    /// Parses `KEY=VALUE` pairs; unknown keys and malformed pairs are errors.
    pub fn parse(kernel: &dyn Kernel, pairs: &[String]) -> Result<Params> {
        let mut values: BTreeMap<&'static str, String> = kernel
            .params()
            .iter()
            .map(|s| (s.key, s.default.to_string()))
            .collect();
        // A key given twice is refused, as a repeated --input is (the last
        // one silently won until 2026-11-25; review).
        let mut given = std::collections::BTreeSet::new();
        for pair in pairs {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| Error::usage(format!("parameter `{pair}` is not KEY=VALUE")))?;
            let spec = find_spec(kernel, key)?;
            check_value(spec, value)?;
            if !given.insert(spec.key) {
                return Err(Error::usage(format!(
                    "parameter `{}` given twice",
                    spec.key
                )));
            }
            values.insert(spec.key, value.to_string());
        }
        Ok(Params {
            kernel: kernel.name(),
            values,
        })
    }

    /// The defaults of a kernel.
    pub fn defaults(kernel: &dyn Kernel) -> Params {
        Params::parse(kernel, &[]).expect("defaults are valid keys")
    }

    /// Sets one parameter (for audits); unknown keys are errors.
    pub fn set(&mut self, kernel: &dyn Kernel, key: &str, value: &str) -> Result<()> {
        let spec = find_spec(kernel, key)?;
        check_value(spec, value)?;
        self.values.insert(spec.key, value.to_string());
        Ok(())
    }

    /// All parameters as text (for reports).
    pub fn as_map(&self) -> &BTreeMap<&'static str, String> {
        &self.values
    }

    fn raw(&self, key: &str) -> Result<&str> {
        self.values
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| Error::usage(format!("kernel {} has no parameter `{key}`", self.kernel)))
    }

    fn parsed<T: FromStr>(&self, key: &str, what: &str) -> Result<T> {
        let raw = self.raw(key)?;
        raw.parse()
            .map_err(|_| Error::usage(format!("parameter {key}={raw}: expected {what}")))
    }

    /// A number format (`fp64`, `fp32`, `tf32`, `bf16`, `fp16`, `e4m3`, `e5m2`).
    pub fn format(&self, key: &str) -> Result<Format> {
        let raw = self.raw(key)?;
        Format::by_name(raw).map_err(|e| Error::usage(format!("parameter {key}: {e}")))
    }
    /// A rounding mode (`rne`, `rtz`, `rup`, `rdn`).
    pub fn mode(&self, key: &str) -> Result<RoundingMode> {
        let raw = self.raw(key)?;
        raw.parse()
            .map_err(|e| Error::usage(format!("parameter {key}: {e}")))
    }
    /// A boolean (`true`/`false`).
    pub fn bool(&self, key: &str) -> Result<bool> {
        self.parsed(key, "true or false")
    }
    /// A non-negative integer (0 included; what 0 means is the kernel's to say).
    pub fn usize(&self, key: &str) -> Result<usize> {
        self.parsed(key, "a non-negative integer")
    }
    /// A finite number.
    pub fn f64(&self, key: &str) -> Result<f64> {
        let v: f64 = self.parsed(key, "a number")?;
        if !v.is_finite() {
            return Err(Error::usage(format!("parameter {key}: {v} is not finite")));
        }
        Ok(v)
    }
    /// Text (e.g. a backend name).
    pub fn text(&self, key: &str) -> Result<&str> {
        self.raw(key)
    }
}

/// Refuses a value the parameter does not take, naming the parameter.
fn check_value(spec: &ParamSpec, value: &str) -> Result<()> {
    let problem = match spec.kind {
        ParamKind::Format => Format::by_name(value).err().map(|e| e.to_string()),
        ParamKind::Mode => value.parse::<RoundingMode>().err().map(|e| e.to_string()),
        ParamKind::Bool => value
            .parse::<bool>()
            .err()
            .map(|_| "expected true or false".to_string()),
        ParamKind::Count => value
            .parse::<usize>()
            .err()
            .map(|_| "expected a non-negative integer".to_string()),
        ParamKind::Probability => match value.parse::<f64>() {
            Ok(p) if p > 0.0 && p < 1.0 => None,
            _ => Some("expected a probability in (0, 1)".to_string()),
        },
        ParamKind::Choice(words) => {
            (!words.contains(&value)).then(|| format!("expected one of {}", words.join(", ")))
        }
    };
    match problem {
        None => Ok(()),
        Some(reason) => Err(Error::usage(format!(
            "parameter {}={value}: {reason}",
            spec.key
        ))),
    }
}

fn find_spec(kernel: &dyn Kernel, key: &str) -> Result<&'static ParamSpec> {
    kernel
        .params()
        .iter()
        .find(|s| s.key == key)
        .ok_or_else(|| {
            let known: Vec<_> = kernel.params().iter().map(|s| s.key).collect();
            Error::usage(format!(
                "kernel {} has no parameter `{key}` (parameters: {})",
                kernel.name(),
                known.join(", ")
            ))
        })
}
