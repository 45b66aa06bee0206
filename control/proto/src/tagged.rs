//! Requests tagged by an `"op"` field, decoded without a generic value tree.
//!
//! serde's own internally tagged enums (`#[serde(tag = "op")]`) read the whole object
//! into an untyped buffer before they look at the tag: a 32 MiB request of nested
//! junk became gigabytes in memory before its unknown field was refused. Here the
//! object's top level is read first, each field kept as its JSON text (at most
//! [`MAX_FIELDS`] fields, no field twice), then the `op` picks the variant, whose fields
//! are decoded straight from their text into their types; an unknown field is refused
//! by name before anything is built from it. Peak memory is the request's text plus
//! one copy of it, and what the request's types hold.
//!
//! [`op_tagged!`](crate::op_tagged) defines such an enum: the public enum serializes
//! with `op` as serde's internally tagged enums do, and decodes through a private
//! externally tagged twin generated from the same variant list.

use serde::de::{
    self, DeserializeOwned, Deserializer, EnumAccess, MapAccess, VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::value::RawValue;

/// Most top-level fields one request may have (no request has more than three).
pub const MAX_FIELDS: usize = 16;

/// The top-level fields of a request object, each as its JSON text.
struct Fields(Vec<(String, Box<RawValue>)>);

impl<'de> de::Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object with an \"op\" string")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Fields, A::Error> {
                let mut fields: Vec<(String, Box<RawValue>)> = Vec::new();
                while let Some(k) = m.next_key::<String>()? {
                    if fields.len() == MAX_FIELDS {
                        return Err(de::Error::custom(format!(
                            "more than {MAX_FIELDS} fields in one request"
                        )));
                    }
                    if fields.iter().any(|(f, _)| *f == k) {
                        return Err(de::Error::custom(format!("duplicate field `{k}`")));
                    }
                    let v = m.next_value()?;
                    fields.push((k, v));
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(V)
    }
}

/// Decode an op-tagged object from `d` into `W`, the externally tagged twin of the
/// request enum (`{"op": "set_port", "port": 1}` is read as `{"set_port": {"port": 1}}`).
pub fn deserialize<'de, W: DeserializeOwned, D: Deserializer<'de>>(d: D) -> Result<W, D::Error> {
    let Fields(mut fields) = de::Deserialize::deserialize(d)?;
    let Some(i) = fields.iter().position(|(k, _)| k == "op") else {
        return Err(de::Error::custom("missing field `op`"));
    };
    let (_, op) = fields.swap_remove(i);
    let op: String =
        serde_json::from_str(op.get()).map_err(|_| de::Error::custom("`op` is not a string"))?;
    W::deserialize(Tagged {
        op: &op,
        fields: &fields,
    })
    .map_err(de::Error::custom)
}

/// An op and the request's other fields, presented as the externally tagged enum
/// variant `{op: {fields}}`.
struct Tagged<'de> {
    op: &'de str,
    fields: &'de [(String, Box<RawValue>)],
}

impl<'de> Deserializer<'de> for Tagged<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_enum(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for Tagged<'de> {
    type Error = serde_json::Error;
    type Variant = Body<'de>;

    fn variant_seed<S: de::DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Body<'de>), Self::Error> {
        let op: de::value::BorrowedStrDeserializer<serde_json::Error> =
            de::value::BorrowedStrDeserializer::new(self.op);
        Ok((seed.deserialize(op)?, Body(self.fields)))
    }
}

/// A request's fields other than `op`: the body of its variant.
struct Body<'de>(&'de [(String, Box<RawValue>)]);

impl<'de> VariantAccess<'de> for Body<'de> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), Self::Error> {
        Err(de::Error::custom("a request variant is a struct"))
    }

    fn newtype_variant_seed<S: de::DeserializeSeed<'de>>(
        self,
        _: S,
    ) -> Result<S::Value, Self::Error> {
        Err(de::Error::custom("a request variant is a struct"))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("a request variant is a struct"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        // each field's text is parsed once, into the field's own type
        let pairs = self.0.iter().map(|(k, raw)| (k.as_str(), &**raw));
        v.visit_map(de::value::MapDeserializer::new(pairs))
    }
}

/// Define a request enum tagged by `"op"` (the variant's name in snake case): it
/// serializes as serde's internally tagged enums do, lists its ops (strum's
/// `VariantNames`, `IntoStaticStr`), and decodes through [`deserialize`] (no generic
/// value tree; unknown and duplicate fields refused). Every variant is a struct variant
/// (`Health {}`), so unknown fields are refused for every op.
#[macro_export]
macro_rules! op_tagged {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident {
                    $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)?
                }
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(serde::Serialize, strum::VariantNames, strum::IntoStaticStr)]
        #[serde(tag = "op", rename_all = "snake_case")]
        #[strum(serialize_all = "snake_case")]
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant { $( $(#[$fmeta])* $field: $ty ),* }
            ),*
        }

        const _: () = {
            /// The externally tagged twin that [`$name`] decodes through.
            #[derive(serde::Deserialize)]
            #[serde(rename_all = "snake_case", deny_unknown_fields)]
            enum Wire {
                $( $variant { $( $(#[$fmeta])* $field: $ty ),* } ),*
            }

            impl From<Wire> for $name {
                fn from(w: Wire) -> $name {
                    match w {
                        $( Wire::$variant { $($field),* } => $name::$variant { $($field),* } ),*
                    }
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    $crate::tagged::deserialize::<Wire, D>(d).map(Into::into)
                }
            }
        };
    };
}

#[cfg(test)]
mod tests {
    crate::op_tagged! {
        /// A test request.
        #[derive(Debug, Clone)]
        pub enum Req {
            /// No fields.
            Ping {},
            /// Two fields, one optional.
            Set {
                /// A port.
                port: u16,
                /// Optional.
                #[serde(default)]
                max: Option<usize>,
            },
            /// Raw JSON kept as text.
            Put {
                /// The payload.
                body: Box<serde_json::value::RawValue>,
            },
        }
    }

    fn de(s: &str) -> Result<Req, String> {
        serde_json::from_str(s).map_err(|e| e.to_string())
    }

    /// The request as it serializes (`Req` holds raw JSON, which has no `==`).
    fn text(r: &Req) -> String {
        serde_json::to_string(r).unwrap()
    }

    #[test]
    fn ops_decode_in_any_field_order() {
        assert!(matches!(de(r#"{"op":"ping"}"#).unwrap(), Req::Ping {}));
        assert!(matches!(
            de(r#"{"port":3,"op":"set"}"#).unwrap(),
            Req::Set { port: 3, max: None }
        ));
        assert!(matches!(
            de(r#" { "op" : "set" , "max" : 9 , "port" : 1 } "#).unwrap(),
            Req::Set {
                port: 1,
                max: Some(9)
            }
        ));
        match de(r#"{"body":{"a":[1, 2]},"op":"put"}"#).unwrap() {
            Req::Put { body } => assert_eq!(body.get(), r#"{"a":[1, 2]}"#),
            r => panic!("{r:?}"),
        }
    }

    #[test]
    fn serialization_is_op_tagged_and_round_trips() {
        let r = Req::Set {
            port: 2,
            max: Some(5),
        };
        let s = text(&r);
        assert_eq!(s, r#"{"op":"set","port":2,"max":5}"#);
        assert_eq!(text(&de(&s).unwrap()), s);
        let s = r#"{"op":"put","body":{"x":[1,{"y":null}]}}"#;
        assert_eq!(text(&de(s).unwrap()), s);
        let s = serde_json::to_string(&Req::Ping {}).unwrap();
        assert_eq!(s, r#"{"op":"ping"}"#);
    }

    #[test]
    fn bad_requests_are_refused_with_what_is_wrong() {
        for (line, want) in [
            (r#"{"op":"ping","x":1}"#, "unknown field `x`"),
            (
                r#"{"op":"set","port":1,"port":2}"#,
                "duplicate field `port`",
            ),
            (r#"{"op":"ping","op":"ping"}"#, "duplicate field `op`"),
            (r#"{"op":"reboot"}"#, "unknown variant `reboot`"),
            (r#"{"port":1}"#, "missing field `op`"),
            (r#"{"op":7}"#, "`op` is not a string"),
            (r#"{"op":"set"}"#, "missing field `port`"),
            (r#"{"op":"set","port":"a"}"#, "invalid type"),
            (r#"{"op":"set","port":70000}"#, "invalid value"),
            (r#"[1]"#, "a JSON object"),
            (r#"{"op":"ping"} x"#, "trailing characters"),
        ] {
            let e = de(line).unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
        }
        let many: String = (0..super::MAX_FIELDS + 1)
            .map(|i| format!("\"f{i}\":0,"))
            .collect();
        let e = de(&format!("{{{many}\"op\":\"ping\"}}")).unwrap_err();
        assert!(e.contains("more than 16 fields"), "{e}");
    }

    #[test]
    fn an_unknown_field_is_refused_before_its_value_is_built() {
        // 200,000 nested objects in an unknown field: refused, and only kept as text
        let junk: String = std::iter::repeat_n(r#"{"":0},"#, 200_000).collect();
        let line = format!(r#"{{"op":"ping","x":[{}0]}}"#, junk);
        let e = de(&line).unwrap_err();
        assert!(e.contains("unknown field `x`"), "{e}");
    }
}
