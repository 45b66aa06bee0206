//! The P4Info p4c writes for `p4/canopy.p4` ([`P4Info`]), read from its proto3 JSON form,
//! and [`P4InfoError`], why the entries do not resolve through it ([`EntryProblem`]).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::DROP_COUNTER;
use canopy_p4rt::config;

/// The P4Info command that writes the JSON form [`P4Info::load`] reads (p4c picks the
/// format from the file name's extension).
pub const P4INFO_COMMAND: &str = "p4c --target bmv2 --arch v1model \
     --p4runtime-files OUTDIR/canopy.p4info.json -o OUTDIR p4/canopy.p4";

/// Why a P4Info could not be read (naming the file), or a name or value of the entries
/// does not resolve through it ([`P4InfoError::Entry`], naming the switch and the table).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum P4InfoError {
    /// The file could not be read.
    #[error("{path}: {msg}")]
    Io {
        /// File.
        path: String,
        /// The system's message.
        msg: String,
    },
    /// The file is a P4Info in protobuf text (or binary) format, not JSON.
    #[error(
        "{path}: not a JSON P4Info (protobuf text or binary format?); ask p4c for the JSON \
         form with a .json file name: {P4INFO_COMMAND}"
    )]
    NotJson {
        /// File.
        path: String,
    },
    /// The JSON does not parse as a P4Info.
    #[error("{path}: bad P4Info JSON: {msg}")]
    Json {
        /// File.
        path: String,
        /// The parser's message.
        msg: String,
    },
    /// The JSON parses but declares no table (e.g. the bmv2 `canopy.json`, not the P4Info).
    #[error("{path}: no tables: not a P4Info (write one with {P4INFO_COMMAND})")]
    NoTables {
        /// File.
        path: String,
    },
    /// The drop counter (indexed by drop reason) is not in the P4Info.
    #[error("the P4Info has no counter {DROP_COUNTER}")]
    NoDropCounter,
    /// An entry does not resolve through the P4Info: the switch, the table (its full
    /// name, or the name the entries give when the P4Info has no such table) and why.
    #[error("switch {switch}: table {table}{problem}")]
    Entry {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// What does not resolve.
        problem: EntryProblem,
    },
}

/// Why an entry of one table does not resolve through the P4Info (the message follows
/// "switch S: table T").
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EntryProblem {
    /// The table is not in the P4Info.
    #[error(" is not in the P4Info")]
    UnknownTable,
    /// A key field the entries write is not a match field of the table.
    #[error(" has no match field {field} in the P4Info")]
    UnknownField {
        /// Field name.
        field: String,
    },
    /// An exact match field of the P4Info has no value in an entry (exact fields cannot be
    /// "don't care").
    #[error(": exact match field {field} has no value")]
    MissingField {
        /// Field name.
        field: String,
    },
    /// The match kind of a field differs between the P4Info and the generator.
    #[error(": field {field} is {p4info} in the P4Info, the entries match it {generator}")]
    MatchKind {
        /// Field name.
        field: String,
        /// Kind in the P4Info.
        p4info: String,
        /// Kind the generator writes.
        generator: &'static str,
    },
    /// A key is malformed (a field twice, a ternary value outside its mask, an empty range).
    #[error(": field {field}: {what}")]
    BadMatch {
        /// Field name.
        field: String,
        /// What is wrong.
        what: &'static str,
    },
    /// An action the entries use is not in the P4Info.
    #[error(": action {action} is not in the P4Info")]
    UnknownAction {
        /// Action (full name).
        action: String,
    },
    /// An action is not among the table's action refs.
    #[error(": action {action} is not among the table's actions in the P4Info")]
    ActionNotInTable {
        /// Action (full name).
        action: String,
    },
    /// A `@defaultonly` action in an entry, or a `@tableonly` action as the default.
    #[error(": action {action} is {scope} and cannot be {used_as}")]
    Scope {
        /// Action (full name).
        action: String,
        /// The action ref's scope in the P4Info.
        scope: String,
        /// How the entries use it.
        used_as: &'static str,
    },
    /// A parameter the entries write is not a parameter of the action.
    #[error(": action {action} has no parameter {param} in the P4Info")]
    UnknownParam {
        /// Action (full name).
        action: String,
        /// Parameter name.
        param: String,
    },
    /// A parameter of the P4Info's action has no value.
    #[error(": action {action}: parameter {param} has no value")]
    MissingParam {
        /// Action (full name).
        action: String,
        /// Parameter name.
        param: String,
    },
    /// A value does not fit the bit width the P4Info gives its field or parameter.
    #[error(": {what} = {value:#x} does not fit its {bits} bits in the P4Info")]
    TooWide {
        /// Which field or parameter.
        what: String,
        /// Value.
        value: u64,
        /// Bit width in the P4Info.
        bits: i32,
    },
    /// An entry of a table with a ternary/range/optional field has no priority, or an
    /// entry of a table without one has a priority.
    #[error(
        ": {}",
        if *needed { "the P4Info has a ternary/range/optional field, the entry has no priority" }
        else { "the P4Info has no ternary/range/optional field, the entry has a priority" }
    )]
    Priority {
        /// Whether the P4Info makes the priority necessary.
        needed: bool,
    },
}

/// The parts of a P4Info (`p4.config.v1.P4Info` in proto3 JSON, as
/// `p4c --p4runtime-files X.json` writes it) that [`p4runtime`](super::p4runtime()) resolves names with;
/// other members are ignored. Written in the same form by `canopyctl p4info` (from
/// [`program_p4info`](super::program_p4info), through `From<&config::P4Info>`).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct P4Info {
    /// The package (its architecture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pkg_info: Option<PkgInfo>,
    /// Tables.
    pub tables: Vec<P4Table>,
    /// Actions.
    pub actions: Vec<P4Action>,
    /// Counters.
    pub counters: Vec<P4Counter>,
}

/// `p4.config.v1.PkgInfo`: the architecture.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PkgInfo {
    /// `v1model`, `tna`, ...
    pub arch: String,
}

/// `p4.config.v1.Preamble`: id and fully qualified name.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Preamble {
    /// Id.
    pub id: u32,
    /// Fully qualified name.
    pub name: String,
    /// Shortest unique name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub alias: String,
}

/// `p4.config.v1.Table`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct P4Table {
    /// Id and name.
    pub preamble: Preamble,
    /// Key fields.
    #[serde(alias = "match_fields")]
    pub match_fields: Vec<P4MatchField>,
    /// Actions of the table.
    #[serde(alias = "action_refs")]
    pub action_refs: Vec<P4ActionRef>,
    /// Size (an int64: a string in proto3 JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<Int64>,
}

/// A proto3 JSON int64: written as a string, read as a string or a number.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Int64 {
    /// As proto3 JSON writes it.
    Text(String),
    /// As some writers do.
    Number(i64),
}

/// `p4.config.v1.MatchField`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct P4MatchField {
    /// Id within the table.
    pub id: u32,
    /// Name (the key expression).
    pub name: String,
    /// Width in bits.
    pub bitwidth: i32,
    /// `EXACT`, `LPM`, `TERNARY`, `RANGE`, `OPTIONAL`.
    #[serde(alias = "match_type", skip_serializing_if = "Option::is_none")]
    pub match_type: Option<String>,
    /// Architecture-specific match kind.
    #[serde(alias = "other_match_type", skip_serializing_if = "Option::is_none")]
    pub other_match_type: Option<String>,
}

impl P4MatchField {
    /// The match kind as the P4Info names it (`EXACT`, `TERNARY`, …).
    pub(super) fn kind(&self) -> String {
        match (&self.match_type, &self.other_match_type) {
            (Some(k), _) => k.clone(),
            (None, Some(o)) => format!("other match type {o}"),
            (None, None) => "UNSPECIFIED".into(),
        }
    }
}

/// `p4.config.v1.ActionRef`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct P4ActionRef {
    /// Action id.
    pub id: u32,
    /// `TABLE_AND_DEFAULT` (absent), `TABLE_ONLY` or `DEFAULT_ONLY`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// `p4.config.v1.Action`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct P4Action {
    /// Id and name.
    pub preamble: Preamble,
    /// Parameters.
    pub params: Vec<P4Param>,
}

/// `p4.config.v1.Action.Param`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct P4Param {
    /// Id within the action.
    pub id: u32,
    /// Name.
    pub name: String,
    /// Width in bits.
    pub bitwidth: i32,
}

/// `p4.config.v1.Counter` (only the preamble is read).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct P4Counter {
    /// Id and name.
    pub preamble: Preamble,
    /// Its unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<P4CounterSpec>,
    /// Cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<Int64>,
}

/// `p4.config.v1.CounterSpec`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct P4CounterSpec {
    /// `PACKETS`, `BYTES` or `BOTH`.
    pub unit: String,
}

impl From<&config::Preamble> for Preamble {
    fn from(p: &config::Preamble) -> Preamble {
        Preamble {
            id: p.id,
            name: p.name.clone(),
            alias: p.alias.clone(),
        }
    }
}

fn preamble(p: Option<&config::Preamble>) -> Preamble {
    p.map(Preamble::from).unwrap_or_default()
}

/// The name proto3 JSON gives a match kind.
fn match_type(m: Option<&config::match_field::Match>) -> (Option<String>, Option<String>) {
    use config::match_field::{Match, MatchType as T};
    match m {
        Some(Match::MatchType(t)) => {
            let name = match T::try_from(*t) {
                Ok(T::Exact) => "EXACT",
                Ok(T::Lpm) => "LPM",
                Ok(T::Ternary) => "TERNARY",
                Ok(T::Range) => "RANGE",
                Ok(T::Optional) => "OPTIONAL",
                _ => "UNSPECIFIED",
            };
            (Some(name.into()), None)
        }
        Some(Match::OtherMatchType(o)) => (None, Some(o.clone())),
        None => (None, None),
    }
}

impl From<&config::P4Info> for P4Info {
    /// The proto3 JSON form of a P4Info's tables, actions and counters (what this
    /// subset holds; action profiles, meters and the like are left out).
    fn from(i: &config::P4Info) -> P4Info {
        use config::counter_spec::Unit;
        P4Info {
            pkg_info: i.pkg_info.as_ref().map(|p| PkgInfo {
                arch: p.arch.clone(),
            }),
            tables: i
                .tables
                .iter()
                .map(|t| P4Table {
                    preamble: preamble(t.preamble.as_ref()),
                    match_fields: t
                        .match_fields
                        .iter()
                        .map(|f| {
                            let (match_type, other_match_type) = match_type(f.r#match.as_ref());
                            P4MatchField {
                                id: f.id,
                                name: f.name.clone(),
                                bitwidth: f.bitwidth,
                                match_type,
                                other_match_type,
                            }
                        })
                        .collect(),
                    action_refs: t
                        .action_refs
                        .iter()
                        .map(|a| {
                            use config::action_ref::Scope;
                            let scope = match Scope::try_from(a.scope) {
                                Ok(Scope::TableOnly) => Some("TABLE_ONLY"),
                                Ok(Scope::DefaultOnly) => Some("DEFAULT_ONLY"),
                                Ok(Scope::GroupAction) => Some("GROUP_ACTION"),
                                _ => None,
                            };
                            P4ActionRef {
                                id: a.id,
                                scope: scope.map(String::from),
                            }
                        })
                        .collect(),
                    size: Some(Int64::Text(t.size.to_string())),
                })
                .collect(),
            actions: i
                .actions
                .iter()
                .map(|a| P4Action {
                    preamble: preamble(a.preamble.as_ref()),
                    params: a
                        .params
                        .iter()
                        .map(|p| P4Param {
                            id: p.id,
                            name: p.name.clone(),
                            bitwidth: p.bitwidth,
                        })
                        .collect(),
                })
                .collect(),
            counters: i
                .counters
                .iter()
                .map(|c| P4Counter {
                    preamble: preamble(c.preamble.as_ref()),
                    spec: c.spec.as_ref().map(|s| P4CounterSpec {
                        unit: match Unit::try_from(s.unit) {
                            Ok(Unit::Bytes) => "BYTES",
                            Ok(Unit::Packets) => "PACKETS",
                            Ok(Unit::Both) => "BOTH",
                            _ => "UNSPECIFIED",
                        }
                        .into(),
                    }),
                    size: Some(Int64::Text(c.size.to_string())),
                })
                .collect(),
        }
    }
}

impl P4Info {
    /// Parse the proto3 JSON form; `path` only names the source in errors. Text that is
    /// not a JSON object (the protobuf text format) is [`P4InfoError::NotJson`].
    pub fn from_json(text: &str, path: &str) -> Result<P4Info, P4InfoError> {
        if !text.trim_start().starts_with('{') {
            return Err(P4InfoError::NotJson { path: path.into() });
        }
        let info: P4Info = serde_json::from_str(text).map_err(|e| P4InfoError::Json {
            path: path.into(),
            msg: e.to_string(),
        })?;
        if info.tables.is_empty() {
            return Err(P4InfoError::NoTables { path: path.into() });
        }
        Ok(info)
    }

    /// Read a P4Info file in the JSON form. A `.txt`/`.txtpb`/`.pb`/`.bin` name (the
    /// text and binary forms p4c also writes) is refused before reading.
    pub fn load(path: &std::path::Path) -> Result<P4Info, P4InfoError> {
        let name = path.display().to_string();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if matches!(ext.as_str(), "txt" | "txtpb" | "pbtxt" | "pb" | "bin") {
            return Err(P4InfoError::NotJson { path: name });
        }
        let bytes = std::fs::read(path).map_err(|e| P4InfoError::Io {
            path: name.clone(),
            msg: e.to_string(),
        })?;
        match String::from_utf8(bytes) {
            Ok(text) => P4Info::from_json(&text, &name),
            Err(_) => Err(P4InfoError::NotJson { path: name }),
        }
    }

    /// The P4Info id of the drop counter ([`DROP_COUNTER`]).
    pub fn drop_counter_id(&self) -> Result<u32, P4InfoError> {
        self.counters
            .iter()
            .find(|c| c.preamble.name == DROP_COUNTER)
            .map(|c| c.preamble.id)
            .ok_or(P4InfoError::NoDropCounter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_form_of_a_p4info_keeps_scopes_match_kinds_sizes_and_units() {
        let info = super::super::program_p4info();
        let mut info2 = info.clone();
        info2.tables[0].action_refs[0].scope = config::action_ref::Scope::DefaultOnly as i32;
        let json = serde_json::to_string(&P4Info::from(&info2)).unwrap();
        let back = P4Info::from_json(&json, "x.json").unwrap();
        assert_eq!(back.tables.len(), info.tables.len());
        assert_eq!(
            back.tables[0].action_refs[0].scope.as_deref(),
            Some("DEFAULT_ONLY")
        );
        assert_eq!(back.tables[0].action_refs[1].scope, None);
        assert_eq!(back.tables[0].match_fields[0].kind(), "EXACT");
        assert_eq!(
            back.tables[0].size,
            Some(Int64::Text(info.tables[0].size.to_string()))
        );
        let c = &back.counters[0];
        assert_eq!(
            c.preamble.name,
            info.counters[0].preamble.as_ref().unwrap().name
        );
        assert!(matches!(
            c.spec.as_ref().map(|s| s.unit.as_str()),
            Some("PACKETS" | "BOTH")
        ));
        assert_eq!(back.pkg_info.unwrap().arch, "v1model");
    }
}
