//! Connected components of a topology's parts: a union-find over node indices.
//!
//! Used where a part of the fabric must be cut into pieces that share no link: the
//! in-process fabric keeps each pod on one thread, and the weighted-random traffic
//! pattern draws destinations by the level at which they first meet their source.

/// Disjoint sets over `0..n`, with path halving (no ranks: the sets here are a few
/// thousand nodes, and halving alone keeps the trees shallow).
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    /// `n` singleton sets.
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    /// The representative of `x`'s set.
    ///
    /// # Panics
    /// If `x` is not below the `n` given to [`UnionFind::new`].
    pub fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the sets of `a` and `b`.
    pub fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        self.parent[ra] = rb;
    }
}

#[cfg(test)]
mod tests {
    use super::UnionFind;

    #[test]
    fn unions_join_sets_and_leave_others_apart() {
        let mut u = UnionFind::new(6);
        u.union(0, 1);
        u.union(2, 3);
        u.union(1, 3);
        assert_eq!(u.find(0), u.find(2));
        assert_ne!(u.find(0), u.find(4));
        assert_ne!(u.find(4), u.find(5));
        u.union(5, 4);
        assert_eq!(u.find(4), u.find(5));
        // a long chain stays correct
        let mut c = UnionFind::new(1000);
        for i in 1..1000 {
            c.union(i - 1, i);
        }
        assert_eq!(c.find(0), c.find(999));
    }
}
