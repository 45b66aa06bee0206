//! Drop reasons and device counters with their counter labels, written once.
//!
//! Every drop counter has a stable label (exported as a metric label, indexed by
//! position, documented in `docs/wire-format.md` §7). [`drop_reasons!`] makes the enum
//! and its labels from one list, in the style of VPP's error lists: each variant is
//! written once with its label, and the macro derives the label table (`NAMES`), its
//! length (`COUNT`), each value's position (`index`) and label (`name`). The list order
//! is the counter order.
//!
//! Three forms:
//!
//! * Every variant without fields: the enum is `#[repr(u8)]` with discriminants 0, 1, …
//!   in list order, and also gets `ALL`, `Display` (the label) and `std::error::Error`.
//! * Variants with fields (one label per variant, whatever its fields hold): `NAMES`,
//!   `COUNT`, `index`, `name`; `Display` is the enum's own (e.g. `thiserror`).
//! * A first variant `Name(Inner) => ..` that nests another such enum: its labels come
//!   first, in its order, then the other variants' (which have no fields). `Display`
//!   is the enum's own.
//!
//! [`device_counters!`] does the same for a struct of cumulative `u64` counters a
//! backend reads from its device (e.g. the kernel's `XDP_STATISTICS`): each field is
//! written once with its label, and the macro derives `NAMES`, `COUNT`, `as_array`
//! (the fields in `NAMES` order) and `add`.

/// Define a drop-reason enum and its counter labels from one list (see the module
/// documentation for the three forms).
///
/// ```text
/// drop_reasons! {
///     /// Why the port refused a frame.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
///     pub enum PortDrop {
///         /// TX: no free frame in the TX ring.
///         TxRingFull => "tx_ring_full",
///         /// TX: the port is down.
///         PortDown => "port_down",
///     }
/// }
/// assert_eq!(PortDrop::NAMES, ["tx_ring_full", "port_down"]);
/// assert_eq!(PortDrop::PortDown.index(), 1);
/// ```
macro_rules! drop_reasons {
    // Every variant without fields.
    (
        $(#[$m:meta])*
        $vis:vis enum $E:ident {
            $( $(#[$vm:meta])* $V:ident => $name:literal ),+ $(,)?
        }
    ) => {
        $(#[$m])*
        #[repr(u8)]
        $vis enum $E {
            $( $(#[$vm])* $V, )+
        }

        impl $E {
            /// Number of reasons.
            pub const COUNT: usize = [$($name),+].len();
            /// Every reason, in counter order (`ALL[r.index()] == r`).
            pub const ALL: [$E; Self::COUNT] = [$($E::$V),+];
            /// The counter labels, in counter order.
            pub const NAMES: [&'static str; Self::COUNT] = [$($name),+];

            /// Position of this reason's counter (its discriminant).
            #[inline]
            pub const fn index(&self) -> usize {
                *self as usize
            }

            /// Stable counter label.
            #[inline]
            pub const fn name(&self) -> &'static str {
                Self::NAMES[self.index()]
            }
        }

        impl core::fmt::Display for $E {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::error::Error for $E {}
    };

    // A first variant nesting another reason enum, then variants without fields.
    (
        $(#[$m:meta])*
        $vis:vis enum $E:ident {
            $(#[$nm:meta])* $N:ident ( $Inner:ident ) => ..,
            $( $(#[$vm:meta])* $V:ident => $name:literal ),+ $(,)?
        }
    ) => {
        $(#[$m])*
        $vis enum $E {
            $(#[$nm])* $N($Inner),
            $( $(#[$vm])* $V, )+
        }

        impl $E {
            /// Number of labels: the nested enum's, then this enum's own.
            pub const COUNT: usize = $Inner::COUNT + [$($name),+].len();
            /// The counter labels, in counter order: the nested enum's, then the others.
            pub const NAMES: [&'static str; Self::COUNT] =
                $crate::reasons::concat_names(&$Inner::NAMES, &[$($name),+]);

            /// Position of this reason's counter in [`Self::NAMES`].
            #[inline]
            pub const fn index(&self) -> usize {
                #[allow(dead_code)]
                enum Own {
                    $($V,)+
                }
                match self {
                    $E::$N(inner) => inner.index(),
                    $( $E::$V => $Inner::COUNT + Own::$V as usize, )+
                }
            }

            /// Stable counter label.
            #[inline]
            pub const fn name(&self) -> &'static str {
                Self::NAMES[self.index()]
            }
        }
    };

    // Variants that may hold fields: one label per variant.
    (
        $(#[$m:meta])*
        $vis:vis enum $E:ident {
            $(
                $(#[$vm:meta])*
                $V:ident $( ( $($tuple:tt)* ) )? $( { $($fields:tt)* } )? => $name:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$m])*
        $vis enum $E {
            $( $(#[$vm])* $V $( ( $($tuple)* ) )? $( { $($fields)* } )?, )+
        }

        impl $E {
            /// Number of reasons.
            pub const COUNT: usize = [$($name),+].len();
            /// The counter labels, in counter order.
            pub const NAMES: [&'static str; Self::COUNT] = [$($name),+];

            /// Position of this reason's counter in [`Self::NAMES`].
            #[inline]
            pub const fn index(&self) -> usize {
                #[allow(dead_code)]
                enum Pos {
                    $($V,)+
                }
                match self {
                    $( $E::$V { .. } => Pos::$V as usize, )+
                }
            }

            /// Stable counter label.
            #[inline]
            pub const fn name(&self) -> &'static str {
                Self::NAMES[self.index()]
            }
        }
    };
}
pub(crate) use drop_reasons;

/// Define a struct of `u64` counters and their labels from one list:
///
/// ```text
/// device_counters! {
///     /// The kernel's counters.
///     #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
///     pub struct KernelStats {
///         /// Frames dropped.
///         rx_dropped => "k_rx_dropped",
///     }
/// }
/// ```
///
/// makes `pub rx_dropped: u64`, `KernelStats::NAMES == ["k_rx_dropped"]`, `COUNT`,
/// `as_array()` (the fields in `NAMES` order) and `add(&other)` (field by field).
macro_rules! device_counters {
    (
        $(#[$m:meta])*
        $vis:vis struct $S:ident {
            $( $(#[$fm:meta])* $f:ident => $name:literal ),+ $(,)?
        }
    ) => {
        $(#[$m])*
        $vis struct $S {
            $( $(#[$fm])* pub $f: u64, )+
        }

        impl $S {
            /// Number of counters.
            pub const COUNT: usize = [$($name),+].len();
            /// The counter labels, in field order.
            pub const NAMES: [&'static str; Self::COUNT] = [$($name),+];

            /// The counters in [`Self::NAMES`] order.
            pub fn as_array(&self) -> [u64; Self::COUNT] {
                [$(self.$f),+]
            }

            /// Add `other`'s counters to these.
            pub fn add(&mut self, other: &Self) {
                $( self.$f += other.$f; )+
            }
        }
    };
}
pub(crate) use device_counters;

/// `a` then `b` as one array of `N` labels (`N` must be `A + B`: checked when the
/// constant is evaluated, so a wrong length fails the build).
pub(crate) const fn concat_names<const A: usize, const B: usize, const N: usize>(
    a: &[&'static str; A],
    b: &[&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N, "concat_names: N must be A + B");
    let mut out = [""; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    drop_reasons! {
        /// Fieldless.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Plain {
            /// a
            A => "a_label",
            /// b
            B => "b_label",
            /// c
            C => "c_label",
        }
    }

    drop_reasons! {
        /// With fields.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Fields {
            /// tuple
            T(u8) => "t_label",
            /// unit
            U => "u_label",
            /// struct
            S {
                /// x
                x: u16,
            } => "s_label",
        }
    }

    drop_reasons! {
        /// Nesting.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Nest {
            /// the nested labels come first
            Inner(Fields) => ..,
            /// own
            Own1 => "own_1",
            /// own
            Own2 => "own_2",
        }
    }

    #[test]
    fn fieldless_labels_follow_the_list() {
        assert_eq!(Plain::COUNT, 3);
        assert_eq!(Plain::NAMES, ["a_label", "b_label", "c_label"]);
        for (i, r) in Plain::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
            assert_eq!(*r as usize, i);
            assert_eq!(r.name(), Plain::NAMES[i]);
            assert_eq!(r.to_string(), Plain::NAMES[i]);
        }
        let e: Box<dyn std::error::Error> = Box::new(Plain::B);
        assert_eq!(e.to_string(), "b_label");
    }

    #[test]
    fn variants_with_fields_have_one_label_each() {
        assert_eq!(Fields::NAMES, ["t_label", "u_label", "s_label"]);
        let all = [Fields::T(9), Fields::U, Fields::S { x: 3 }];
        for (i, r) in all.iter().enumerate() {
            assert_eq!(r.index(), i);
            assert_eq!(r.name(), Fields::NAMES[i]);
        }
    }

    #[test]
    fn nested_labels_come_first() {
        assert_eq!(Nest::COUNT, 5);
        assert_eq!(
            Nest::NAMES,
            ["t_label", "u_label", "s_label", "own_1", "own_2"]
        );
        let all = [
            Nest::Inner(Fields::T(1)),
            Nest::Inner(Fields::U),
            Nest::Inner(Fields::S { x: 0 }),
            Nest::Own1,
            Nest::Own2,
        ];
        for (i, r) in all.iter().enumerate() {
            assert_eq!(r.index(), i, "{r:?}");
            assert_eq!(r.name(), Nest::NAMES[i]);
        }
    }

    device_counters! {
        /// Counters.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct Stats {
            /// x
            x => "x_label",
            /// y
            y => "y_label",
        }
    }

    #[test]
    fn device_counters_follow_the_fields() {
        assert_eq!(Stats::NAMES, ["x_label", "y_label"]);
        let mut s = Stats { x: 1, y: 2 };
        s.add(&Stats { x: 10, y: 20 });
        assert_eq!(s.as_array(), [11, 22]);
    }

    #[test]
    fn concat_names_keeps_both_orders() {
        const N: [&str; 3] = super::concat_names(&["x"], &["y", "z"]);
        assert_eq!(N, ["x", "y", "z"]);
    }
}
