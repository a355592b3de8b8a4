//! What a tool is (SPEC §8.1): its layer, its risk, and its definition as a provider declares
//! it (`ToolDef`) and as the catalog names it (`ToolSpec`). The catalog knows every tool it
//! serves; this module knows only what a name alone tells: the fixed built-in and dispatcher
//! names, `mcp__<server>__<tool>` for MCP tools, and everything else is a mini tool tool.
//! Unknown names therefore land in the layer that always gets a permission card.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a tool comes from (SPEC §8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// Runtime built-ins implemented in finch: `Read`, `Bash`, …
    Builtin,
    /// Tool suites (dispatchers) implemented in finch: `Memory`, `MiniTool`, …
    Suite,
    /// Tools registered by mini tools: `<mini-tool-id>_<name>`.
    MiniTool,
    /// Tools of MCP servers: `mcp__<server>__<tool>`.
    Mcp,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Builtin => "builtin",
            Layer::Suite => "suite",
            Layer::MiniTool => "minitool",
            Layer::Mcp => "mcp",
        }
    }

    /// The layer a bare name implies.
    pub fn of_name(name: &str) -> Layer {
        if BUILTIN_TOOLS.contains(&name) {
            Layer::Builtin
        } else if SUITE_TOOLS.contains(&name) {
            Layer::Suite
        } else if name.starts_with(MCP_PREFIX) {
            Layer::Mcp
        } else {
            Layer::MiniTool
        }
    }
}

/// The runtime built-ins (§8.1, §8.6).
pub const BUILTIN_TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "Grep",
    "Glob",
    "Bash",
    "WebSearch",
    "WebFetch",
    "AskUserQuestion",
    "TodoWrite",
    "Skill",
];

/// The tool suites (dispatchers) (§8.1).
pub const SUITE_TOOLS: &[&str] = &[
    "Memory",
    "Skills",
    "Session",
    "AppCall",
    "ToolSearch",
    "MiniTool",
    "Schedule",
];

/// The prefix of every MCP tool name.
pub const MCP_PREFIX: &str = "mcp__";

/// How much harm a call can do, as a permission card shows it (SPEC §8.4).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    Low,
    Medium,
    High,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }
}

/// A tool as the policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolRef<'a> {
    /// The model-facing name.
    pub name: &'a str,
    pub layer: Layer,
    /// The mini tool or MCP server behind it, when known.
    pub owner: Option<&'a str>,
    /// The risk its owner declared (mini tool and MCP tools); the policy's own estimate when
    /// `None`.
    pub risk: Option<Risk>,
}

impl<'a> ToolRef<'a> {
    /// A tool known only by its name: the layer and owner follow from its shape. For a mini tool
    /// tool the owner stays unknown (`a_b_c` may be tool `b_c` of `a` or `c` of `a_b`); the
    /// catalog fills it in.
    pub fn from_name(name: &'a str) -> ToolRef<'a> {
        let layer = Layer::of_name(name);
        let owner = match layer {
            Layer::Mcp => name[MCP_PREFIX.len()..]
                .split_once("__")
                .map(|(server, _)| server),
            _ => None,
        };
        ToolRef {
            name,
            layer,
            owner,
            risk: None,
        }
    }
}

/// When a tool enters a session (SPEC §8.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Exposure {
    /// Active from the session's start.
    #[default]
    Startup,
    /// Active only after a ToolSearch returned it.
    Dynamic,
}

/// A tool as its provider declares it. The catalog turns `wanted_name` into the final name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDef {
    /// The name the provider registered (`Read`, `forecast`, the MCP server's tool name).
    pub raw_name: String,
    /// The sanitized name it should get (`Read`, `acme_forecast`, `mcp__gh__create_issue`).
    pub wanted_name: String,
    pub title: String,
    pub description: String,
    pub layer: Layer,
    /// `builtin`, `suite`, `minitool:<id>` or `mcp:<server>`: what ToolSearch's `source` filters.
    pub source: String,
    /// The mini tool or MCP server the tool belongs to (`owner.extensionId` when a mini tool
    /// registers on behalf of another).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    /// The JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
    #[serde(default)]
    pub exposure: Exposure,
    /// Search text beside the description, ranked and never shown: a mini tool's display
    /// strings in every locale it ships (`runtime::localized`); a built-in's or dispatcher's
    /// words from the code.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub keywords: String,
    /// The MCP `annotations` the tool's own server declared (MCP tools only), passed on as the
    /// upstream hints of `hints::of` (SPEC §8.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

impl ToolDef {
    /// The identity used for stable hash suffixes: source and raw name.
    pub(crate) fn key(&self) -> String {
        format!("{}/{}", self.source, self.raw_name)
    }
}

/// A tool in the catalog: its definition and the name it got.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: String,
    pub def: ToolDef,
}

impl ToolSpec {
    pub fn raw_name(&self) -> &str {
        &self.def.raw_name
    }

    pub fn layer(&self) -> Layer {
        self.def.layer
    }

    /// The spec as `tool info --json` and `/tools` describe it.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "name": self.name,
            "rawName": self.def.raw_name,
            "title": self.def.title,
            "description": self.def.description,
            "layer": self.def.layer.as_str(),
            "source": self.def.source,
            "owner": self.def.owner,
            "risk": self.def.risk.map(Risk::as_str),
            "exposure": self.def.exposure,
            "inputSchema": self.def.input_schema,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_imply_layers() {
        let cases = [
            ("Read", Layer::Builtin, None),
            ("Bash", Layer::Builtin, None),
            ("Memory", Layer::Suite, None),
            ("MiniTool", Layer::Suite, None),
            ("mcp__github__create_issue", Layer::Mcp, Some("github")),
            ("mcp__x", Layer::Mcp, None),
            ("weather_forecast", Layer::MiniTool, None),
            ("read", Layer::MiniTool, None),
            ("Unknown", Layer::MiniTool, None),
        ];
        for (name, layer, owner) in cases {
            let tool = ToolRef::from_name(name);
            assert_eq!((tool.layer, tool.owner), (layer, owner), "{name}");
        }
    }
}
