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
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("qdot").unwrap();
    /// let p = Params::parse(k, &["tile=0".into()]).unwrap();
    /// assert_eq!((p.usize("tile").unwrap(), p.text("half").unwrap()), (0, "fp16-fp32"));
    /// // Not KEY=VALUE, an unknown key, a bad value, a key given twice:
    /// for bad in [&["tile"][..], &["colour=red"], &["tile=-1"], &["tile=1", "tile=2"]] {
    ///     let pairs: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
    ///     assert!(matches!(Params::parse(k, &pairs), Err(Error::Usage(_))));
    /// }
    /// ```
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
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("qdot").unwrap();
    /// let p = Params::defaults(k);
    /// // Every parameter of the kernel, at its default.
    /// assert_eq!(p.as_map().len(), k.params().len());
    /// for spec in k.params() {
    ///     assert_eq!(p.as_map()[spec.key], spec.default);
    /// }
    /// ```
    pub fn defaults(kernel: &dyn Kernel) -> Params {
        Params::parse(kernel, &[]).expect("defaults are valid keys")
    }

    /// Sets one parameter (for audits); unknown keys are errors.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("qdot").unwrap();
    /// let mut p = Params::defaults(k);
    /// p.set(k, "eps", "1e-4").unwrap();
    /// assert_eq!(p.f64("eps").unwrap(), 1e-4);
    /// // Checked as `parse` checks: eps is a probability in (0, 1).
    /// assert!(matches!(p.set(k, "eps", "2"), Err(Error::Usage(_))));
    /// assert!(matches!(p.set(k, "colour", "red"), Err(Error::Usage(_))));
    /// assert_eq!(p.f64("eps").unwrap(), 1e-4); // a refused value changes nothing
    /// ```
    pub fn set(&mut self, kernel: &dyn Kernel, key: &str, value: &str) -> Result<()> {
        let spec = find_spec(kernel, key)?;
        check_value(spec, value)?;
        self.values.insert(spec.key, value.to_string());
        Ok(())
    }

    /// All parameters as text (for reports).
    ///
    /// # Example
    /// ```
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("qdot").unwrap();
    /// let p = Params::parse(k, &["input=fp32".into()]).unwrap();
    /// let map = p.as_map();
    /// assert_eq!((map["input"].as_str(), map["eps"].as_str()), ("fp32", "1e-8")); // defaults too
    /// assert!(map.keys().is_sorted());
    /// ```
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
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::{Params, registry};
    /// use boundgate_verify::format::Format;
    /// let k = registry::find("qdot").unwrap();
    /// let p = Params::parse(k, &["input=bf16".into()]).unwrap();
    /// assert_eq!(p.format("input").unwrap(), Format::BF16);
    /// assert!(matches!(p.format("fexp"), Err(Error::Usage(_)))); // "ieee" is no format
    /// assert!(matches!(p.format("storage"), Err(Error::Usage(m)) if m.contains("no parameter `storage`")));
    /// ```
    pub fn format(&self, key: &str) -> Result<Format> {
        let raw = self.raw(key)?;
        Format::by_name(raw).map_err(|e| Error::usage(format!("parameter {key}: {e}")))
    }
    /// A rounding mode (`rne`, `rtz`, `rup`, `rdn`).
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::{Params, registry};
    /// use boundgate_verify::format::RoundingMode;
    /// let k = registry::find("dot-recursive").unwrap();
    /// let p = Params::parse(k, &["mode=rtz".into()]).unwrap();
    /// assert_eq!(p.mode("mode").unwrap(), RoundingMode::TowardZero);
    /// assert_eq!(Params::defaults(k).mode("mode").unwrap(), RoundingMode::NearestEven);
    /// assert!(matches!(p.mode("format"), Err(Error::Usage(_)))); // "fp32" is no mode
    /// ```
    pub fn mode(&self, key: &str) -> Result<RoundingMode> {
        let raw = self.raw(key)?;
        raw.parse()
            .map_err(|e| Error::usage(format!("parameter {key}: {e}")))
    }
    /// A boolean (`true`/`false`).
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("qdot").unwrap();
    /// let p = Params::parse(k, &["early_exit=false".into()]).unwrap();
    /// assert!(!p.bool("early_exit").unwrap());
    /// assert!(Params::defaults(k).bool("early_exit").unwrap());
    /// assert!(matches!(p.bool("tile"), Err(Error::Usage(m)) if m.ends_with("expected true or false")));
    /// ```
    pub fn bool(&self, key: &str) -> Result<bool> {
        self.parsed(key, "true or false")
    }
    /// A non-negative integer (0 included; what 0 means is the kernel's to say).
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("qdot").unwrap();
    /// let p = Params::parse(k, &["tile=128".into()]).unwrap();
    /// assert_eq!(p.usize("tile").unwrap(), 128);
    /// assert!(matches!(p.usize("eps"), Err(Error::Usage(m)) if m == "parameter eps=1e-8: expected a non-negative integer"));
    /// ```
    pub fn usize(&self, key: &str) -> Result<usize> {
        self.parsed(key, "a non-negative integer")
    }
    /// A finite number.
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("qdot").unwrap();
    /// let p = Params::parse(k, &["eps=0.125".into()]).unwrap();
    /// assert_eq!(p.f64("eps").unwrap(), 0.125);
    /// assert_eq!(p.f64("tile").unwrap(), 64.0); // a count is a number too
    /// assert!(matches!(p.f64("input"), Err(Error::Usage(m)) if m == "parameter input=fp64: expected a number"));
    /// ```
    pub fn f64(&self, key: &str) -> Result<f64> {
        let v: f64 = self.parsed(key, "a number")?;
        if !v.is_finite() {
            return Err(Error::usage(format!("parameter {key}: {v} is not finite")));
        }
        Ok(v)
    }
    /// Text (e.g. a backend name).
    ///
    /// # Example
    /// ```
    /// use boundgate::Error;
    /// use boundgate::kernels::{Params, registry};
    /// let k = registry::find("qdot").unwrap();
    /// let p = Params::parse(k, &["layout=interleaved".into()]).unwrap();
    /// assert_eq!(p.text("layout").unwrap(), "interleaved");
    /// assert_eq!(p.text("fexp").unwrap(), "ieee"); // the default
    /// assert!(matches!(p.text("colour"), Err(Error::Usage(m)) if m == "kernel qdot has no parameter `colour`"));
    /// ```
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
