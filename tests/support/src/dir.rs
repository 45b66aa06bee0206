use std::path::PathBuf;

/// A scratch directory under the system temporary directory (`tempfile`), removed on
/// drop (also when the test fails).
pub struct Dir(pub tempfile::TempDir);

impl Dir {
    /// A fresh directory `canopy-<tag>-<random>`.
    pub fn new(tag: &str) -> Dir {
        Dir(tempfile::Builder::new()
            .prefix(&format!("canopy-{tag}-"))
            .tempdir()
            .expect("a scratch directory under the temporary directory"))
    }

    /// The directory itself.
    pub fn root(&self) -> &std::path::Path {
        self.0.path()
    }

    /// File `f` in it.
    pub fn path(&self, f: &str) -> PathBuf {
        self.0.path().join(f)
    }
}
