//! `Skill` (SPEC §8.6): returns the `SKILL.md` of a skill by name, so the model can follow it.
//! Skills are found the way `crate::skill` finds them (project > personal > global > mini
//! tools); the one that wins a name is returned. The result starts with the skill's directory,
//! because a skill's instructions refer to files beside it by relative path. Nothing is run.

use std::path::Path;

use serde_json::{Value, json};

use super::super::catalog::ToolDef;
use super::super::output::{Content, ToolOutput};
use crate::homes::Homes;
use crate::host::call::context::CallCx;
use crate::skill;

const DESCRIPTION: &str = "Load a skill: returns the instructions (SKILL.md) of the skill named \
`name`, to follow for the task at hand. Skills are specialised procedures installed for this \
project, the user, or by mini tools; call it when a skill's name or description matches the \
task. `args` is passed along as the user's arguments to the skill. An unknown name returns the \
list of available skills.";

/// What people type when they want this tool (ToolSearch ranks it beside the description).
pub const KEYWORDS: &str = "skill load use run a skill SKILL.md slash command instructions. 调用技能 使用技能 加载技能 技能 斜杠命令 調用技能 使用技能 載入技能 技能";

pub fn def() -> ToolDef {
    super::def(
        "Skill",
        "Load a skill",
        DESCRIPTION,
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "description": "The skill's name."},
                "skill": {"type": "string", "minLength": 1, "description": "Same as `name`."},
                "args": {"type": "string", "description": "Arguments for the skill, if the user gave any."}
            },
            "additionalProperties": false
        }),
    )
}

pub fn call(args: &Value, cx: &mut CallCx) -> ToolOutput {
    load(args, &cx.env.homes, &cx.session.cwd)
}

fn load(args: &Value, homes: &Homes, cwd: &Path) -> ToolOutput {
    let Some(wanted) = super::str_arg(args, "name").or_else(|| super::str_arg(args, "skill"))
    else {
        return ToolOutput::error(
            "Say which skill to load: call Skill with {\"name\": \"<skill name>\"}.",
        );
    };
    // `/name` is how a person types a skill; the model may copy it.
    let wanted = wanted.trim().trim_start_matches('/');
    let (skills, warnings) = skill::discover(homes, cwd);
    let Some(found) = skill::find(&skills, wanted) else {
        return ToolOutput::error(unknown(wanted, &skills, &warnings, homes, cwd));
    };
    let text = match std::fs::read_to_string(&found.path) {
        Ok(t) => t,
        Err(e) => {
            return ToolOutput::error(format!(
                "The skill `{}` is at {}, but it cannot be read: {e}.",
                found.name,
                found.path.display()
            ));
        }
    };
    let base = found.path.parent().unwrap_or(&found.path);
    let extra = args
        .get("args")
        .and_then(Value::as_str)
        .filter(|a| !a.trim().is_empty());
    let mut out = format!(
        "Skill `{}` ({}), from {}\nBase directory for this skill: {}\n",
        found.name,
        found.source.label(),
        found.path.display(),
        base.display()
    );
    if let Some(a) = extra {
        out.push_str(&format!("Arguments: {a}\n"));
    }
    out.push('\n');
    out.push_str(&text);
    ToolOutput {
        content: vec![Content::Text(out)],
        structured: Some(json!({
            "name": found.name,
            "source": found.source.label(),
            "path": found.path,
            "baseDirectory": base,
            "args": extra,
        })),
        is_error: false,
    }
}

/// The error for a name no skill has: the names there are, or where none were found.
fn unknown(
    wanted: &str,
    skills: &[skill::Skill],
    warnings: &[String],
    homes: &Homes,
    cwd: &Path,
) -> String {
    let mut names: Vec<&str> = skills
        .iter()
        .filter(|s| s.shadowed_by.is_none())
        .map(|s| s.name.as_str())
        .collect();
    names.dedup();
    let mut message = if names.is_empty() {
        format!(
            "There is no skill named `{wanted}`: no skills are installed (looked in {}, {}, {} \
             and the skills/ of enabled mini tools).",
            cwd.join(".finch/skills").display(),
            homes.agent.join("skills").display(),
            homes.runtime.join("skills").display(),
        )
    } else {
        format!(
            "There is no skill named `{wanted}`. Available skills: {}. Call Skill with one of \
             these names.",
            names.join(", ")
        )
    };
    for w in warnings {
        message.push_str(&format!("\nwarning: {w}"));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::homes::AgentHomeSource;

    #[test]
    fn schema_compiles() {
        assert!(jsonschema::validator_for(&def().input_schema).is_ok());
    }

    fn write_skill(root: &Path, dir: &str, body: &str) {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        std::fs::write(root.join(dir).join("SKILL.md"), body).unwrap();
    }

    #[test]
    fn finds_by_name_with_precedence() {
        let tmp = tempfile::tempdir().unwrap();
        let homes = Homes {
            runtime: tmp.path().join("runtime"),
            agent: tmp.path().join("agent"),
            agent_source: AgentHomeSource::Flag,
        };
        let cwd = tmp.path().join("work");
        write_skill(
            &cwd.join(".finch/skills"),
            "pdf",
            "---\nname: pdf\ndescription: project pdf\n---\nProject body\n",
        );
        write_skill(
            &homes.agent.join("skills"),
            "pdf",
            "---\nname: pdf\n---\nPersonal body\n",
        );
        write_skill(
            &homes.runtime.join("skills"),
            "deploy-dir",
            "---\nname: deploy\n---\nGlobal body\n",
        );

        let out = load(&json!({"name": "pdf", "args": "form.pdf"}), &homes, &cwd);
        assert!(!out.is_error);
        let base = cwd.join(".finch/skills/pdf");
        assert_eq!(
            out.text_content(),
            format!(
                "Skill `pdf` (project), from {}\nBase directory for this skill: {}\nArguments: form.pdf\n\n---\nname: pdf\ndescription: project pdf\n---\nProject body\n",
                base.join("SKILL.md").display(),
                base.display()
            )
        );
        assert_eq!(out.structured.unwrap()["source"], "project");

        // The alias, a leading slash, and a front-matter name that differs from its directory.
        let out = load(&json!({"skill": "/deploy"}), &homes, &cwd);
        assert!(out.text_content().ends_with("\nGlobal body\n"));
        assert!(out.text_content().contains("(global)"));

        let out = load(&json!({"name": "nope"}), &homes, &cwd);
        assert!(out.is_error);
        assert_eq!(
            out.text_content(),
            "There is no skill named `nope`. Available skills: deploy, pdf. Call Skill with one of these names."
        );

        let out = load(&json!({}), &homes, &cwd);
        assert!(out.is_error);
        assert!(out.text_content().contains("{\"name\": \"<skill name>\"}"));
    }

    #[test]
    fn no_skills_says_where_it_looked() {
        let tmp = tempfile::tempdir().unwrap();
        let homes = Homes {
            runtime: tmp.path().join("runtime"),
            agent: tmp.path().join("agent"),
            agent_source: AgentHomeSource::Flag,
        };
        let out = load(&json!({"name": "x"}), &homes, tmp.path());
        assert!(out.is_error);
        let text = out.text_content();
        assert!(text.contains("no skills are installed"), "{text}");
        assert!(text.contains(&homes.agent.join("skills").display().to_string()));
    }
}
