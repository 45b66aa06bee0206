//! `p4.v1`: the P4Runtime service's messages, written from the P4Runtime Specification
//! (v1.4, and its protobuf definitions' field numbers). Every message of the service is
//! here with the fields Canopy reads or writes; an entity, match or stream message of a
//! kind Canopy's targets do not have (externs, meters, registers, digests, packet I/O, ...)
//! is kept as its encoded bytes, so it still decodes and is refused by kind rather than
//! dropped as an unknown field. `tests/wire.rs` checks every message against the official
//! definitions (the PyPI `p4runtime` package) in both directions.

use crate::rpc::{Any, Status};

/// A 128-bit unsigned integer (election ids).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, ::prost::Message)]
pub struct Uint128 {
    /// The high 64 bits.
    #[prost(uint64, tag = "1")]
    pub high: u64,
    /// The low 64 bits.
    #[prost(uint64, tag = "2")]
    pub low: u64,
}

impl Uint128 {
    /// As one number.
    pub fn get(&self) -> u128 {
        (u128::from(self.high) << 64) | u128::from(self.low)
    }

    /// From one number.
    pub fn of(v: u128) -> Uint128 {
        Uint128 {
            high: (v >> 64) as u64,
            low: v as u64,
        }
    }
}

/// `Write`: updates applied to one device.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct WriteRequest {
    /// The device.
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
    /// Deprecated role id.
    #[prost(uint64, tag = "2")]
    pub role_id: u64,
    /// The role (empty: the default role).
    #[prost(string, tag = "6")]
    pub role: String,
    /// The writer's election id: must be the primary's.
    #[prost(message, optional, tag = "3")]
    pub election_id: Option<Uint128>,
    /// The updates, in order.
    #[prost(message, repeated, tag = "4")]
    pub updates: Vec<Update>,
    /// [`Atomicity`].
    #[prost(enumeration = "Atomicity", tag = "5")]
    pub atomicity: i32,
}

/// How a batch of updates applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum Atomicity {
    /// Each update on its own; the failed ones are reported.
    ContinueOnError = 0,
    /// All or nothing.
    RollbackOnError = 1,
    /// All or nothing, and the data plane never sees a part of it.
    DataplaneAtomic = 2,
}

/// `Write`'s answer (errors travel in the status).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct WriteResponse {}

/// `Read`: the entities matching the given ones (wildcards: unset fields).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ReadRequest {
    /// The device.
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
    /// The role.
    #[prost(string, tag = "3")]
    pub role: String,
    /// What to read.
    #[prost(message, repeated, tag = "2")]
    pub entities: Vec<Entity>,
}

/// One message of `Read`'s answer stream.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ReadResponse {
    /// Entities read.
    #[prost(message, repeated, tag = "1")]
    pub entities: Vec<Entity>,
}

/// One update of a write.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Update {
    /// [`UpdateType`].
    #[prost(enumeration = "UpdateType", tag = "1")]
    pub r#type: i32,
    /// What is written.
    #[prost(message, optional, tag = "2")]
    pub entity: Option<Entity>,
}

/// What an update does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum UpdateType {
    /// Not set (refused).
    Unspecified = 0,
    /// Add an entry.
    Insert = 1,
    /// Change an entry's action.
    Modify = 2,
    /// Remove an entry.
    Delete = 3,
}

/// An entity of the device.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Entity {
    /// Which, and its content.
    #[prost(
        oneof = "entity::Entity",
        tags = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12"
    )]
    pub entity: Option<entity::Entity>,
}

/// [`Entity`]'s kinds.
pub mod entity {

    /// The kinds of entity; the ones Canopy's targets do not have are kept encoded.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Entity {
        /// An extern's entry.
        #[prost(bytes, tag = "1")]
        ExternEntry(Vec<u8>),
        /// A table entry.
        #[prost(message, tag = "2")]
        TableEntry(super::TableEntry),
        /// An action profile member.
        #[prost(bytes, tag = "3")]
        ActionProfileMember(Vec<u8>),
        /// An action profile group.
        #[prost(bytes, tag = "4")]
        ActionProfileGroup(Vec<u8>),
        /// A meter cell.
        #[prost(bytes, tag = "5")]
        MeterEntry(Vec<u8>),
        /// A direct meter.
        #[prost(bytes, tag = "6")]
        DirectMeterEntry(Vec<u8>),
        /// A counter cell.
        #[prost(message, tag = "7")]
        CounterEntry(super::CounterEntry),
        /// A direct counter.
        #[prost(bytes, tag = "8")]
        DirectCounterEntry(Vec<u8>),
        /// A multicast group or clone session.
        #[prost(bytes, tag = "9")]
        PacketReplicationEngineEntry(Vec<u8>),
        /// A value set.
        #[prost(bytes, tag = "10")]
        ValueSetEntry(Vec<u8>),
        /// A register cell.
        #[prost(bytes, tag = "11")]
        RegisterEntry(Vec<u8>),
        /// A digest's configuration.
        #[prost(bytes, tag = "12")]
        DigestEntry(Vec<u8>),
    }

    impl Entity {
        /// The kind's name as the specification writes it (for refusals).
        pub fn kind(&self) -> &'static str {
            match self {
                Entity::ExternEntry(_) => "extern_entry",
                Entity::TableEntry(_) => "table_entry",
                Entity::ActionProfileMember(_) => "action_profile_member",
                Entity::ActionProfileGroup(_) => "action_profile_group",
                Entity::MeterEntry(_) => "meter_entry",
                Entity::DirectMeterEntry(_) => "direct_meter_entry",
                Entity::CounterEntry(_) => "counter_entry",
                Entity::DirectCounterEntry(_) => "direct_counter_entry",
                Entity::PacketReplicationEngineEntry(_) => "packet_replication_engine_entry",
                Entity::ValueSetEntry(_) => "value_set_entry",
                Entity::RegisterEntry(_) => "register_entry",
                Entity::DigestEntry(_) => "digest_entry",
            }
        }
    }
}

/// A table entry (or a table's default action).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TableEntry {
    /// The table.
    #[prost(uint32, tag = "1")]
    pub table_id: u32,
    /// The key, one per field given (don't-care fields are left out).
    #[prost(message, repeated, tag = "2")]
    pub r#match: Vec<FieldMatch>,
    /// The action.
    #[prost(message, optional, tag = "3")]
    pub action: Option<TableAction>,
    /// Priority (the largest wins) where the table has ternary, range or optional fields.
    #[prost(int32, tag = "4")]
    pub priority: i32,
    /// The controller's own number, kept with the entry.
    #[prost(uint64, tag = "5")]
    pub controller_metadata: u64,
    /// A direct meter's configuration.
    #[prost(bytes = "vec", optional, tag = "6")]
    pub meter_config: Option<Vec<u8>>,
    /// A direct counter's data.
    #[prost(message, optional, tag = "7")]
    pub counter_data: Option<CounterData>,
    /// A direct meter's counters.
    #[prost(bytes = "vec", optional, tag = "12")]
    pub meter_counter_data: Option<Vec<u8>>,
    /// This is the table's default action (no key).
    #[prost(bool, tag = "8")]
    pub is_default_action: bool,
    /// Idle timeout.
    #[prost(int64, tag = "9")]
    pub idle_timeout_ns: i64,
    /// Time since the last hit (reads).
    #[prost(bytes = "vec", optional, tag = "10")]
    pub time_since_last_hit: Option<Vec<u8>>,
    /// The controller's own bytes, kept with the entry.
    #[prost(bytes = "vec", tag = "11")]
    pub metadata: Vec<u8>,
    /// A constant entry of the program (reads).
    #[prost(bool, tag = "13")]
    pub is_const: bool,
}

/// One key field of an entry.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct FieldMatch {
    /// The field.
    #[prost(uint32, tag = "1")]
    pub field_id: u32,
    /// How it matches.
    #[prost(oneof = "field_match::FieldMatchType", tags = "2, 3, 4, 6, 7, 100")]
    pub field_match_type: Option<field_match::FieldMatchType>,
}

/// [`FieldMatch`]'s kinds.
pub mod field_match {
    /// Exact value.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Exact {
        /// Value (canonical bytestring).
        #[prost(bytes = "vec", tag = "1")]
        pub value: Vec<u8>,
    }
    /// Value and mask.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Ternary {
        /// Value.
        #[prost(bytes = "vec", tag = "1")]
        pub value: Vec<u8>,
        /// Mask.
        #[prost(bytes = "vec", tag = "2")]
        pub mask: Vec<u8>,
    }
    /// Longest prefix.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Lpm {
        /// Value.
        #[prost(bytes = "vec", tag = "1")]
        pub value: Vec<u8>,
        /// Prefix length.
        #[prost(int32, tag = "2")]
        pub prefix_len: i32,
    }
    /// Both ends included.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Range {
        /// Low end.
        #[prost(bytes = "vec", tag = "1")]
        pub low: Vec<u8>,
        /// High end.
        #[prost(bytes = "vec", tag = "2")]
        pub high: Vec<u8>,
    }
    /// Exact, or don't care when left out.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Optional {
        /// Value.
        #[prost(bytes = "vec", tag = "1")]
        pub value: Vec<u8>,
    }

    /// How a field matches.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum FieldMatchType {
        /// Exact.
        #[prost(message, tag = "2")]
        Exact(Exact),
        /// Ternary.
        #[prost(message, tag = "3")]
        Ternary(Ternary),
        /// LPM.
        #[prost(message, tag = "4")]
        Lpm(Lpm),
        /// Range.
        #[prost(message, tag = "6")]
        Range(Range),
        /// Optional.
        #[prost(message, tag = "7")]
        Optional(Optional),
        /// An architecture's own match kind.
        #[prost(message, tag = "100")]
        Other(crate::rpc::Any),
    }
}

/// An entry's action.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TableAction {
    /// Which kind.
    #[prost(oneof = "table_action::Type", tags = "1, 2, 3, 4")]
    pub r#type: Option<table_action::Type>,
}

/// [`TableAction`]'s kinds.
pub mod table_action {
    /// A direct action, or an action profile's member, group or action set.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Type {
        /// A direct action.
        #[prost(message, tag = "1")]
        Action(super::Action),
        /// An action profile member.
        #[prost(uint32, tag = "2")]
        ActionProfileMemberId(u32),
        /// An action profile group.
        #[prost(uint32, tag = "3")]
        ActionProfileGroupId(u32),
        /// A one-shot action set.
        #[prost(bytes, tag = "4")]
        ActionProfileActionSet(Vec<u8>),
    }
}

/// An action with its parameters.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Action {
    /// The action.
    #[prost(uint32, tag = "1")]
    pub action_id: u32,
    /// Its parameters.
    #[prost(message, repeated, tag = "4")]
    pub params: Vec<action::Param>,
}

/// [`Action`]'s parts.
pub mod action {
    /// One parameter.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Param {
        /// The parameter.
        #[prost(uint32, tag = "2")]
        pub param_id: u32,
        /// Its value (canonical bytestring).
        #[prost(bytes = "vec", tag = "3")]
        pub value: Vec<u8>,
    }
}

/// An index into an indexed extern.
#[derive(Clone, Copy, PartialEq, Eq, ::prost::Message)]
pub struct Index {
    /// The index.
    #[prost(int64, tag = "1")]
    pub index: i64,
}

/// One cell of a counter array (read with no index: every cell).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct CounterEntry {
    /// The counter.
    #[prost(uint32, tag = "1")]
    pub counter_id: u32,
    /// The cell.
    #[prost(message, optional, tag = "2")]
    pub index: Option<Index>,
    /// Its counts.
    #[prost(message, optional, tag = "3")]
    pub data: Option<CounterData>,
}

/// A counter's counts.
#[derive(Clone, Copy, PartialEq, Eq, ::prost::Message)]
pub struct CounterData {
    /// Bytes.
    #[prost(int64, tag = "1")]
    pub byte_count: i64,
    /// Packets.
    #[prost(int64, tag = "2")]
    pub packet_count: i64,
}

/// A message from the controller on the stream.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct StreamMessageRequest {
    /// Which.
    #[prost(oneof = "stream_message_request::Update", tags = "1, 2, 3, 4")]
    pub update: Option<stream_message_request::Update>,
}

/// [`StreamMessageRequest`]'s kinds.
pub mod stream_message_request {
    /// Arbitration, or a packet, digest ack or other message Canopy does not take.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Update {
        /// Become (or stay) primary, or a backup.
        #[prost(message, tag = "1")]
        Arbitration(super::MasterArbitrationUpdate),
        /// A packet out.
        #[prost(bytes, tag = "2")]
        Packet(Vec<u8>),
        /// A digest list ack.
        #[prost(bytes, tag = "3")]
        DigestAck(Vec<u8>),
        /// An architecture's own message.
        #[prost(message, tag = "4")]
        Other(crate::rpc::Any),
    }
}

/// A message from the device on the stream.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct StreamMessageResponse {
    /// Which.
    #[prost(oneof = "stream_message_response::Update", tags = "1, 2, 3, 4, 5, 6")]
    pub update: Option<stream_message_response::Update>,
}

/// [`StreamMessageResponse`]'s kinds.
pub mod stream_message_response {
    /// Arbitration's answer, an error, or the kinds Canopy never sends.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Update {
        /// The arbitration's outcome.
        #[prost(message, tag = "1")]
        Arbitration(super::MasterArbitrationUpdate),
        /// A packet in.
        #[prost(bytes, tag = "2")]
        Packet(Vec<u8>),
        /// A digest list.
        #[prost(bytes, tag = "3")]
        Digest(Vec<u8>),
        /// Idle timeouts.
        #[prost(bytes, tag = "4")]
        IdleTimeoutNotification(Vec<u8>),
        /// An architecture's own message.
        #[prost(message, tag = "5")]
        Other(crate::rpc::Any),
        /// A stream message the device refused.
        #[prost(message, tag = "6")]
        Error(super::StreamError),
    }
}

/// Arbitration: a controller asks to be primary for a device and role.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct MasterArbitrationUpdate {
    /// The device.
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
    /// The role (none: the default role).
    #[prost(message, optional, tag = "2")]
    pub role: Option<Role>,
    /// The election id: the largest is primary.
    #[prost(message, optional, tag = "3")]
    pub election_id: Option<Uint128>,
    /// In the answer: OK for the primary, ALREADY_EXISTS for a backup (with the
    /// primary's election id), NOT_FOUND when there is no primary.
    #[prost(message, optional, tag = "4")]
    pub status: Option<Status>,
}

/// A role.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Role {
    /// Deprecated id.
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Its name.
    #[prost(string, tag = "3")]
    pub name: String,
    /// Its configuration.
    #[prost(message, optional, tag = "2")]
    pub config: Option<Any>,
}

/// A stream message the device could not take.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct StreamError {
    /// gRPC's canonical code.
    #[prost(int32, tag = "1")]
    pub canonical_code: i32,
    /// What went wrong.
    #[prost(string, tag = "2")]
    pub message: String,
    /// Where the code comes from.
    #[prost(string, tag = "3")]
    pub space: String,
    /// Its code there.
    #[prost(int32, tag = "4")]
    pub code: i32,
    /// The message concerned.
    #[prost(oneof = "stream_error::Details", tags = "5, 6, 7")]
    pub details: Option<stream_error::Details>,
}

/// [`StreamError`]'s details.
pub mod stream_error {
    /// The message that failed.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Details {
        /// A packet out.
        #[prost(bytes, tag = "5")]
        PacketOut(Vec<u8>),
        /// A digest list ack.
        #[prost(bytes, tag = "6")]
        DigestListAck(Vec<u8>),
        /// Anything else.
        #[prost(bytes, tag = "7")]
        Other(Vec<u8>),
    }
}

/// `SetForwardingPipelineConfig`: install (or check) a P4 program.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct SetForwardingPipelineConfigRequest {
    /// The device.
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
    /// Deprecated role id.
    #[prost(uint64, tag = "2")]
    pub role_id: u64,
    /// The role.
    #[prost(string, tag = "6")]
    pub role: String,
    /// The writer's election id: must be the primary's.
    #[prost(message, optional, tag = "3")]
    pub election_id: Option<Uint128>,
    /// [`PipelineAction`].
    #[prost(enumeration = "PipelineAction", tag = "4")]
    pub action: i32,
    /// The program.
    #[prost(message, optional, tag = "5")]
    pub config: Option<ForwardingPipelineConfig>,
}

/// What `SetForwardingPipelineConfig` does with the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum PipelineAction {
    /// Not set (refused).
    Unspecified = 0,
    /// Check it only.
    Verify = 1,
    /// Check it and keep it for a later COMMIT.
    VerifyAndSave = 2,
    /// Check it and run it (the state starts afresh).
    VerifyAndCommit = 3,
    /// Run the saved one.
    Commit = 4,
    /// Check it and run it, keeping the state.
    ReconcileAndCommit = 5,
}

/// `SetForwardingPipelineConfig`'s answer.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct SetForwardingPipelineConfigResponse {}

/// A P4 program: its P4Info and the target's own configuration.
///
/// The P4Info is kept as its encoded bytes, exactly as the controller sent it, so that
/// `GetForwardingPipelineConfig` returns it unchanged; [`crate::config::P4Info`] decodes
/// it for the checks.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ForwardingPipelineConfig {
    /// The encoded `p4.config.v1.P4Info`.
    #[prost(bytes = "vec", tag = "1")]
    pub p4info: Vec<u8>,
    /// The target's configuration (bmv2: its JSON).
    #[prost(bytes = "vec", tag = "2")]
    pub p4_device_config: Vec<u8>,
    /// The controller's cookie.
    #[prost(message, optional, tag = "3")]
    pub cookie: Option<Cookie>,
}

/// A pipeline's cookie.
#[derive(Clone, Copy, PartialEq, Eq, ::prost::Message)]
pub struct Cookie {
    /// The cookie.
    #[prost(uint64, tag = "1")]
    pub cookie: u64,
}

/// `GetForwardingPipelineConfig`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct GetForwardingPipelineConfigRequest {
    /// The device.
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
    /// [`ResponseType`].
    #[prost(enumeration = "ResponseType", tag = "2")]
    pub response_type: i32,
}

/// What `GetForwardingPipelineConfig` returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum ResponseType {
    /// Everything.
    All = 0,
    /// The cookie.
    CookieOnly = 1,
    /// The P4Info and the cookie.
    P4infoAndCookie = 2,
    /// The device configuration and the cookie.
    DeviceConfigAndCookie = 3,
}

/// `GetForwardingPipelineConfig`'s answer.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct GetForwardingPipelineConfigResponse {
    /// The program.
    #[prost(message, optional, tag = "1")]
    pub config: Option<ForwardingPipelineConfig>,
}

/// One update's error in a failed `Write` (a detail of its status).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Error {
    /// gRPC's canonical code (OK for an update that succeeded).
    #[prost(int32, tag = "1")]
    pub canonical_code: i32,
    /// What went wrong.
    #[prost(string, tag = "2")]
    pub message: String,
    /// Where the code comes from.
    #[prost(string, tag = "3")]
    pub space: String,
    /// Its code there.
    #[prost(int32, tag = "4")]
    pub code: i32,
    /// More.
    #[prost(message, optional, tag = "5")]
    pub details: Option<Any>,
}

/// The type URL of [`Error`] inside an `Any`.
pub const ERROR_TYPE_URL: &str = "type.googleapis.com/p4.v1.Error";

/// `Capabilities`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct CapabilitiesRequest {
    /// The device.
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
}

/// `Capabilities`' answer.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct CapabilitiesResponse {
    /// The API version the server implements.
    #[prost(string, tag = "1")]
    pub p4runtime_api_version: String,
}
