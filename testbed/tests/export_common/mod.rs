//! What the export tests share: the example descriptions.

use canopy_testbed::fabric::Desc;
use std::path::Path;

/// The description `examples/<name>` of the source tree.
pub fn example(name: &str) -> Desc {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    Desc::load(&p).unwrap_or_else(|e| panic!("{e}"))
}
