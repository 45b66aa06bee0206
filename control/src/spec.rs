//! Compact topology spec strings: `family:key=value;key=value`, where a value may be a
//! comma-separated list. Examples: `fat-tree:k=4`, `znode:z=3,2,3;m=2`,
//! `transit-full:layers=1`, `xgft:h=2;m=4,4;w=1,4`.

use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A spec string that could not be parsed or does not fit its family.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SpecError {
    /// Syntax error (no family, a parameter without `=`, a repeated key…).
    #[error("bad spec `{spec}`: {why}")]
    Syntax {
        /// The spec as given.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// A parameter's value is not what the family expects.
    #[error("bad spec `{spec}`: parameter `{key}` {why}")]
    Param {
        /// The spec as given.
        spec: String,
        /// Parameter name.
        key: String,
        /// What is wrong with it.
        why: String,
    },
    /// The family is not known.
    #[error("unknown topology family `{family}` (known: {known})")]
    UnknownFamily {
        /// Family given.
        family: String,
        /// Comma-separated list of known families.
        known: String,
    },
}

/// A parsed spec: family name and ordered parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// Family, e.g. `fat-tree`.
    pub family: String,
    /// Parameters in the order given.
    pub params: Vec<(String, String)>,
}

impl FromStr for Spec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = |why: &str| SpecError::Syntax {
            spec: s.to_string(),
            why: why.to_string(),
        };
        let s_trim = s.trim();
        let (family, rest) = match s_trim.split_once(':') {
            Some((f, r)) => (f.trim(), r.trim()),
            None => (s_trim, ""),
        };
        if family.is_empty() {
            return Err(syntax("missing family before `:`"));
        }
        if !family
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(syntax(
                "family may only contain letters, digits, `-` and `_`",
            ));
        }
        let mut params: Vec<(String, String)> = Vec::new();
        if !rest.is_empty() {
            for part in rest.split(';') {
                let part = part.trim();
                if part.is_empty() {
                    continue;
                }
                let (k, v) = part
                    .split_once('=')
                    .ok_or_else(|| syntax(&format!("parameter `{part}` has no `=value`")))?;
                let (k, v) = (k.trim(), v.trim());
                if k.is_empty() || v.is_empty() {
                    return Err(syntax(&format!(
                        "parameter `{part}` needs a name and a value"
                    )));
                }
                if params.iter().any(|(pk, _)| pk == k) {
                    return Err(syntax(&format!("parameter `{k}` given twice")));
                }
                params.push((k.to_string(), v.to_string()));
            }
        }
        Ok(Spec {
            family: family.to_ascii_lowercase(),
            params,
        })
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.family)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ';' })?;
        }
        Ok(())
    }
}

impl Spec {
    fn perr(&self, key: &str, why: impl Into<String>) -> SpecError {
        SpecError::Param {
            spec: self.to_string(),
            key: key.to_string(),
            why: why.into(),
        }
    }

    /// Raw value of a parameter.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Reject parameters not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<(), SpecError> {
        for (k, _) in &self.params {
            if !allowed.contains(&k.as_str()) {
                return Err(self.perr(
                    k,
                    format!(
                        "is not a parameter of `{}` (allowed: {})",
                        self.family,
                        allowed.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    fn parse_u64(&self, key: &str, v: &str) -> Result<u64, SpecError> {
        let v = v.trim();
        let r = if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
            u64::from_str_radix(h, 16)
        } else {
            v.parse::<u64>()
        };
        r.map_err(|_| self.perr(key, format!("= `{v}` is not a non-negative integer")))
    }

    /// Optional integer parameter, checked against `[min, max]`.
    pub fn opt_u64(&self, key: &str, min: u64, max: u64) -> Result<Option<u64>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => {
                let n = self.parse_u64(key, v)?;
                if n < min || n > max {
                    return Err(self.perr(key, format!("= {n} is out of range {min}..={max}")));
                }
                Ok(Some(n))
            }
        }
    }

    /// Required integer parameter, checked against `[min, max]`.
    pub fn req_u64(&self, key: &str, min: u64, max: u64) -> Result<u64, SpecError> {
        self.opt_u64(key, min, max)?
            .ok_or_else(|| self.perr(key, "is required"))
    }

    /// Optional list parameter (`a,b,c`), each element checked against `[min, max]`.
    pub fn opt_list(&self, key: &str, min: u64, max: u64) -> Result<Option<Vec<u64>>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => {
                let mut out = Vec::new();
                for item in v.split(',') {
                    let n = self.parse_u64(key, item)?;
                    if n < min || n > max {
                        return Err(
                            self.perr(key, format!("element {n} is out of range {min}..={max}"))
                        );
                    }
                    out.push(n);
                }
                Ok(Some(out))
            }
        }
    }

    /// Required list parameter.
    pub fn req_list(&self, key: &str, min: u64, max: u64) -> Result<Vec<u64>, SpecError> {
        self.opt_list(key, min, max)?
            .ok_or_else(|| self.perr(key, "is required"))
    }

    /// A parameter error for family code that validates combinations.
    pub fn invalid(&self, key: &str, why: impl Into<String>) -> SpecError {
        self.perr(key, why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let s: Spec = "znode:z=3,2,3;m=2".parse().unwrap();
        assert_eq!(s.family, "znode");
        assert_eq!(s.get("z"), Some("3,2,3"));
        assert_eq!(s.req_list("z", 1, 64).unwrap(), vec![3, 2, 3]);
        assert_eq!(s.req_u64("m", 1, 16).unwrap(), 2);
        assert_eq!(s.to_string(), "znode:z=3,2,3;m=2");
        let f: Spec = "fat-tree".parse().unwrap();
        assert!(f.params.is_empty());
    }

    #[test]
    fn errors_say_what_and_where() {
        let e = "".parse::<Spec>().unwrap_err().to_string();
        assert!(e.contains("missing family"), "{e}");
        let e = "fat-tree:k".parse::<Spec>().unwrap_err().to_string();
        assert!(e.contains("`k` has no `=value`"), "{e}");
        let e = "fat-tree:k=4;k=8".parse::<Spec>().unwrap_err().to_string();
        assert!(e.contains("given twice"), "{e}");
        let s: Spec = "fat-tree:k=x".parse().unwrap();
        let e = s.req_u64("k", 2, 256).unwrap_err().to_string();
        assert!(
            e.contains("parameter `k`") && e.contains("not a non-negative integer"),
            "{e}"
        );
        let s: Spec = "fat-tree:k=1000".parse().unwrap();
        let e = s.req_u64("k", 2, 256).unwrap_err().to_string();
        assert!(e.contains("out of range 2..=256"), "{e}");
        let s: Spec = "fat-tree:q=3".parse().unwrap();
        let e = s.only(&["k"]).unwrap_err().to_string();
        assert!(e.contains("`q` is not a parameter"), "{e}");
        let s: Spec = "fat-tree".parse().unwrap();
        assert!(s
            .req_u64("k", 2, 256)
            .unwrap_err()
            .to_string()
            .contains("is required"));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_strings_never_panic(s in ".{0,40}") {
            if let Ok(spec) = s.parse::<Spec>() {
                let _ = spec.to_string();
                let _ = spec.opt_u64("k", 0, 10);
                let _ = spec.opt_list("z", 0, 10);
            }
        }
    }
}
