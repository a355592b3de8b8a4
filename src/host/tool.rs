//! Tool names and the four layers of SPEC §8.1. The catalog knows every tool it serves;
//! this module knows only what a name alone tells: the fixed built-in and dispatcher names,
//! `mcp__<server>__<tool>` for MCP tools, and everything else is a mini tool tool. Unknown names
//! therefore land in the layer that always gets a permission card.

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
