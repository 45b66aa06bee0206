//! `google.rpc.Status` and `google.protobuf.Any`, written from their definitions (the
//! status a P4Runtime server returns, with per-update [`crate::v1::Error`]s packed as
//! `Any` details).

/// A message of any type: its type URL and its encoding.
#[derive(Clone, PartialEq, Eq, ::prost::Message)]
pub struct Any {
    /// `type.googleapis.com/` and the message's full name.
    #[prost(string, tag = "1")]
    pub type_url: String,
    /// The encoded message.
    #[prost(bytes = "vec", tag = "2")]
    pub value: Vec<u8>,
}

impl Any {
    /// `m` packed under `type_url`.
    pub fn pack(type_url: &str, m: &impl prost::Message) -> Any {
        Any {
            type_url: type_url.to_string(),
            value: m.encode_to_vec(),
        }
    }
}

/// A gRPC status: code, message, details.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Status {
    /// The canonical code.
    #[prost(int32, tag = "1")]
    pub code: i32,
    /// What happened.
    #[prost(string, tag = "2")]
    pub message: String,
    /// More, typed.
    #[prost(message, repeated, tag = "3")]
    pub details: Vec<Any>,
}
