//! `p4.config.v1`: the P4Info, the part of a program a controller and a target agree on
//! (ids, names, match kinds and widths), written from the P4Runtime Specification with
//! the fields Canopy checks. Kinds of object Canopy's program has none of (action
//! profiles, direct counters, meters, registers, digests, externs, ...) are kept as their
//! encodings so a P4Info that has them can be refused by what it has.

/// A P4Info.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct P4Info {
    /// The package.
    #[prost(message, optional, tag = "1")]
    pub pkg_info: Option<PkgInfo>,
    /// Tables.
    #[prost(message, repeated, tag = "2")]
    pub tables: Vec<Table>,
    /// Actions.
    #[prost(message, repeated, tag = "3")]
    pub actions: Vec<Action>,
    /// Action profiles (encoded).
    #[prost(bytes = "vec", repeated, tag = "4")]
    pub action_profiles: Vec<Vec<u8>>,
    /// Counter arrays.
    #[prost(message, repeated, tag = "5")]
    pub counters: Vec<Counter>,
    /// Direct counters (encoded).
    #[prost(bytes = "vec", repeated, tag = "6")]
    pub direct_counters: Vec<Vec<u8>>,
    /// Meters (encoded).
    #[prost(bytes = "vec", repeated, tag = "7")]
    pub meters: Vec<Vec<u8>>,
    /// Direct meters (encoded).
    #[prost(bytes = "vec", repeated, tag = "8")]
    pub direct_meters: Vec<Vec<u8>>,
    /// Packet I/O headers (encoded).
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub controller_packet_metadata: Vec<Vec<u8>>,
    /// Value sets (encoded).
    #[prost(bytes = "vec", repeated, tag = "10")]
    pub value_sets: Vec<Vec<u8>>,
    /// Registers (encoded).
    #[prost(bytes = "vec", repeated, tag = "11")]
    pub registers: Vec<Vec<u8>>,
    /// Digests (encoded).
    #[prost(bytes = "vec", repeated, tag = "12")]
    pub digests: Vec<Vec<u8>>,
    /// Other externs (encoded).
    #[prost(bytes = "vec", repeated, tag = "100")]
    pub externs: Vec<Vec<u8>>,
}

/// The program's package.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct PkgInfo {
    /// Name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Version.
    #[prost(string, tag = "2")]
    pub version: String,
    /// Architecture (`v1model`, `tna`, ...).
    #[prost(string, tag = "5")]
    pub arch: String,
}

/// An object's id and names.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Preamble {
    /// Id.
    #[prost(uint32, tag = "1")]
    pub id: u32,
    /// Fully qualified name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Shortest unique name.
    #[prost(string, tag = "3")]
    pub alias: String,
    /// Annotations.
    #[prost(string, repeated, tag = "4")]
    pub annotations: Vec<String>,
}

/// A table.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Table {
    /// Id and name.
    #[prost(message, optional, tag = "1")]
    pub preamble: Option<Preamble>,
    /// Key fields.
    #[prost(message, repeated, tag = "2")]
    pub match_fields: Vec<MatchField>,
    /// Its actions.
    #[prost(message, repeated, tag = "3")]
    pub action_refs: Vec<ActionRef>,
    /// A constant default action's id (0: none).
    #[prost(uint32, tag = "4")]
    pub const_default_action_id: u32,
    /// An action profile implementing it (0: none).
    #[prost(uint32, tag = "6")]
    pub implementation_id: u32,
    /// Direct resources.
    #[prost(uint32, repeated, tag = "7")]
    pub direct_resource_ids: Vec<u32>,
    /// Size.
    #[prost(int64, tag = "8")]
    pub size: i64,
    /// Constant entries only.
    #[prost(bool, tag = "10")]
    pub is_const_table: bool,
}

/// A key field.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct MatchField {
    /// Id within the table.
    #[prost(uint32, tag = "1")]
    pub id: u32,
    /// Name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Width in bits.
    #[prost(int32, tag = "4")]
    pub bitwidth: i32,
    /// How it matches.
    #[prost(oneof = "match_field::Match", tags = "5, 7")]
    pub r#match: Option<match_field::Match>,
}

/// [`MatchField`]'s parts.
pub mod match_field {
    /// A standard match kind, or an architecture's own.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Match {
        /// [`MatchType`].
        #[prost(enumeration = "MatchType", tag = "5")]
        MatchType(i32),
        /// An architecture's own kind.
        #[prost(string, tag = "7")]
        OtherMatchType(String),
    }

    /// The standard match kinds.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
    #[repr(i32)]
    pub enum MatchType {
        /// Not set.
        Unspecified = 0,
        /// Exact.
        Exact = 2,
        /// Longest prefix.
        Lpm = 3,
        /// Value and mask.
        Ternary = 4,
        /// Low and high.
        Range = 5,
        /// Exact or don't care.
        Optional = 6,
    }
}

/// A table's reference to an action.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ActionRef {
    /// The action.
    #[prost(uint32, tag = "1")]
    pub id: u32,
    /// [`action_ref::Scope`].
    #[prost(enumeration = "action_ref::Scope", tag = "3")]
    pub scope: i32,
}

/// [`ActionRef`]'s parts.
pub mod action_ref {
    /// Where the action may be used.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
    #[repr(i32)]
    pub enum Scope {
        /// Entries and the default.
        TableAndDefault = 0,
        /// Entries only.
        TableOnly = 1,
        /// The default only.
        DefaultOnly = 2,
        /// An action selector group's action.
        GroupAction = 3,
    }
}

/// An action.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Action {
    /// Id and name.
    #[prost(message, optional, tag = "1")]
    pub preamble: Option<Preamble>,
    /// Parameters.
    #[prost(message, repeated, tag = "2")]
    pub params: Vec<action::Param>,
}

/// [`Action`]'s parts.
pub mod action {
    /// One parameter.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Param {
        /// Id within the action.
        #[prost(uint32, tag = "1")]
        pub id: u32,
        /// Name.
        #[prost(string, tag = "2")]
        pub name: String,
        /// Width in bits.
        #[prost(int32, tag = "4")]
        pub bitwidth: i32,
    }
}

/// A counter array.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Counter {
    /// Id and name.
    #[prost(message, optional, tag = "1")]
    pub preamble: Option<Preamble>,
    /// What it counts.
    #[prost(message, optional, tag = "2")]
    pub spec: Option<CounterSpec>,
    /// Cells.
    #[prost(int64, tag = "3")]
    pub size: i64,
}

/// What a counter counts.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct CounterSpec {
    /// [`counter_spec::Unit`].
    #[prost(enumeration = "counter_spec::Unit", tag = "1")]
    pub unit: i32,
}

/// [`CounterSpec`]'s parts.
pub mod counter_spec {
    /// Bytes, packets or both.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
    #[repr(i32)]
    pub enum Unit {
        /// Not set.
        Unspecified = 0,
        /// Bytes.
        Bytes = 1,
        /// Packets.
        Packets = 2,
        /// Both.
        Both = 3,
    }
}
