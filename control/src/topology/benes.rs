//! benes topology. PLACEHOLDER: replaced by the benes work.
use super::{TopoError, Topology};
use crate::spec::Spec;

/// Build from a spec.
pub fn build(spec: &Spec) -> Result<Topology, TopoError> {
    Err(TopoError::Invalid {
        spec: spec.to_string(),
        why: "not implemented yet".into(),
    })
}
/// Family-specific address rows of host `h`.
pub fn describe_host(_t: &Topology, _h: u32) -> Vec<(String, String)> {
    Vec::new()
}
/// Family-specific host syntax; `None` if `s` is not in that syntax.
pub fn parse_host(_t: &Topology, _s: &str) -> Option<Result<u32, String>> {
    None
}
