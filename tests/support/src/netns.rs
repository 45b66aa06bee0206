//! Network namespaces of a test: the testbed's [`canopy_testbed::netns::Netns`] (one
//! implementation of namespace handling for the tests, the bench and the testbed), with
//! the calls a test makes panicking on failure. IPv6 is off and loopback up in each.

use canopy_testbed::netns as tb;

/// Namespaces of one test; deleted on drop, also when the test fails.
pub struct Netns {
    inner: tb::Netns,
}

impl Netns {
    /// Namespaces `canopy-t<pid>-<test>-<suffix>`.
    pub fn new(test: &str, suffixes: &[&str]) -> Netns {
        Self::with_prefix(&format!("canopy-t{}-{test}", std::process::id()), suffixes)
    }

    /// Namespaces `<tag><pid>-<test>-<suffix>`.
    pub fn tagged(tag: &str, test: &str, suffixes: &[&str]) -> Netns {
        Self::with_prefix(&format!("{tag}{}-{test}", std::process::id()), suffixes)
    }

    /// Namespaces `<prefix>-<suffix>`.
    pub fn with_prefix(prefix: &str, suffixes: &[&str]) -> Netns {
        let inner = tb::Netns::create(prefix, suffixes)
            .unwrap_or_else(|e| panic!("namespaces {prefix}-*: {e}"));
        Netns { inner }
    }

    /// Full name of namespace `i` (creation order).
    pub fn name(&self, i: usize) -> &str {
        self.inner.name(i)
    }

    /// veth `a` in namespace `na`, peer `b` in namespace `nb`, offloads off when
    /// `ethtool` exists, both up and operationally up (carrier published).
    pub fn veth(&self, na: usize, a: &str, nb: usize, b: &str) {
        tb::veth(self.name(na), a, self.name(nb), b)
            .unwrap_or_else(|e| panic!("veth {a}/{b}: {e}"));
    }

    /// `ip -n <namespace i> <args>`.
    pub fn ip(&self, i: usize, args: &[&str]) {
        let mut a = vec!["-n", self.name(i)];
        a.extend_from_slice(args);
        ip(&a);
    }
}

/// `ip <args>`, which must succeed.
pub fn ip(args: &[&str]) {
    tb::ip(args).unwrap_or_else(|e| panic!("ip {args:?}: {e}"));
}

/// Run `f` on a thread that has entered namespace `ns`; sockets it creates belong there.
pub fn in_ns<T: Send + 'static>(ns: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    tb::in_ns(ns, f).unwrap_or_else(|e| panic!("in namespace {ns}: {e}"))
}
