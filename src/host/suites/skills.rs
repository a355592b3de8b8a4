//! The `Skills` dispatcher (SPEC §1, §8.1): lists the skills `finch skill list` finds (project,
//! personal, global, enabled mini tools; the session's cwd is the project) and invokes one —
//! returns the instructions of the winning `SKILL.md` for the agent to follow, with the
//! caller's arguments put in. Discovery and precedence are `crate::skill`'s; nothing runs here.

use serde_json::{Map, Value, json};

use super::super::output::{Content, ToolOutput};
use super::{About, Action, ActionError, Suite};
use crate::host::call::context::CallCx;
use crate::skill::{self, Skill};

/// Where a skill's body takes the caller's arguments (the convention of Claude Code's skills
/// and commands); without it they follow the body.
const ARGUMENTS_PLACEHOLDER: &str = "$ARGUMENTS";
/// How many skill names an unknown-name error lists.
const MAX_NAMES: usize = 30;

pub struct SkillsSuite;

const ABOUT: About = About {
    name: "Skills",
    title: "Skills",
    description: "List the skills available here (project, personal, global and mini tool skills) and \
     invoke one by name: it returns the skill's instructions for you to follow.",
    keywords: "skills list available skills invoke run use a skill package SKILL.md. 技能列表 列出技能 调用技能 使用技能 技能包 列出技能 調用技能 使用技能 技能包",
};

impl Suite for SkillsSuite {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn actions(&self) -> Vec<Action> {
        vec![
            Action {
                name: "list",
                summary: "List every skill with its description and source; `active` is false for one shadowed by a skill of the same name",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {},
                    "required": [],
                }),
                example: json!({"action": "list"}),
            },
            Action {
                name: "invoke",
                summary: "Return the instructions (SKILL.md without its front matter) of the skill that wins for a name",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "name": {"type": "string", "description": "The skill's name, as list shows it"},
                        "args": {
                            "type": "string",
                            "description": "Arguments for the skill: they replace $ARGUMENTS in its instructions, or follow them",
                        },
                    },
                    "required": ["name"],
                }),
                example: json!({"action": "invoke", "name": "release-notes", "args": "v1.4.0"}),
            },
        ]
    }

    fn run(
        &mut self,
        action: &str,
        args: &Map<String, Value>,
        cx: &mut CallCx,
    ) -> Result<ToolOutput, ActionError> {
        let (skills, warnings) = skill::discover(&cx.env.homes, &cx.session.cwd);
        let mut output = match action {
            "list" => list(&skills),
            "invoke" => invoke(&skills, args)?,
            other => return Err(ActionError::new(format!("Skills has no action {other}"))),
        };
        for w in warnings {
            output.content.push(Content::Text(format!("warning: {w}")));
        }
        Ok(output)
    }
}

fn list(skills: &[Skill]) -> ToolOutput {
    if skills.is_empty() {
        return ToolOutput {
            content: vec![Content::Text(
                "No skills found. Skills are directories holding a SKILL.md under <project>/.finch/skills, <agent home>/skills or <runtime home>/skills.".into(),
            )],
            structured: Some(Value::Array(Vec::new())),
            is_error: false,
        };
    }
    ToolOutput::json(Value::Array(skills.iter().map(Skill::to_json).collect()))
}

fn invoke(skills: &[Skill], args: &Map<String, Value>) -> Result<ToolOutput, ActionError> {
    let name = args.get("name").and_then(Value::as_str).unwrap_or_default();
    let Some(found) = skill::find(skills, name) else {
        return Err(unknown_skill(skills, name));
    };
    let content = std::fs::read_to_string(&found.path)
        .map_err(|e| ActionError::new(format!("cannot read {}: {e}", found.path.display())))?;
    let arguments = args.get("args").and_then(Value::as_str);
    let instructions = with_arguments(skill::body(&content), arguments);
    let dir = found.path.parent().unwrap_or(&found.path);
    let text = format!(
        "Skill \"{}\" ({}, {}). Follow these instructions; paths in them are relative to {}.\n\n{}",
        found.name,
        found.source.label(),
        found.path.display(),
        dir.display(),
        instructions.trim_end()
    );
    let mut structured = found.to_json();
    if let Value::Object(map) = &mut structured {
        map.insert("content".into(), content.into());
        map.insert("arguments".into(), arguments.into());
    }
    Ok(ToolOutput {
        content: vec![Content::Text(text)],
        structured: Some(structured),
        is_error: false,
    })
}

/// The body with `arguments` in place of every `$ARGUMENTS`, else after it.
fn with_arguments(body: &str, arguments: Option<&str>) -> String {
    match arguments.map(str::trim).filter(|a| !a.is_empty()) {
        None => body.to_string(),
        Some(a) if body.contains(ARGUMENTS_PLACEHOLDER) => body.replace(ARGUMENTS_PLACEHOLDER, a),
        Some(a) => format!("{}\n\nARGUMENTS: {a}\n", body.trim_end()),
    }
}

fn unknown_skill(skills: &[Skill], name: &str) -> ActionError {
    let names: Vec<&str> = skills
        .iter()
        .filter(|s| s.shadowed_by.is_none())
        .map(|s| s.name.as_str())
        .collect();
    let error = ActionError::new(format!("no skill named \"{name}\""));
    if names.is_empty() {
        return error.with_hint(
            "there are no skills here; call Skills with {\"action\": \"list\"} after adding one",
        );
    }
    let mut shown = names[..names.len().min(MAX_NAMES)].join(", ");
    if names.len() > MAX_NAMES {
        shown.push_str(&format!(" … and {} more", names.len() - MAX_NAMES));
    }
    error
        .with_hint(format!("skills: {shown}"))
        .with_hint("call Skills with {\"action\": \"list\"} for their descriptions")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_replace_the_placeholder_or_follow_the_body() {
        for (body, args, want) in [
            ("Do X\n", None, "Do X\n"),
            ("Do X\n", Some("  "), "Do X\n"),
            (
                "Notes for $ARGUMENTS.\nThen $ARGUMENTS again.\n",
                Some("v2"),
                "Notes for v2.\nThen v2 again.\n",
            ),
            ("Do X\n\n", Some("fast"), "Do X\n\nARGUMENTS: fast\n"),
        ] {
            assert_eq!(with_arguments(body, args), want, "{body:?} {args:?}");
        }
    }

    #[test]
    fn an_unknown_name_lists_the_active_skills() {
        let skill = |name: &str, shadowed: bool| Skill {
            name: name.into(),
            description: None,
            source: skill::Source::Personal,
            path: format!("/s/{name}/SKILL.md").into(),
            shadowed_by: shadowed.then_some(skill::Source::Project),
        };
        let e = unknown_skill(
            &[skill("a", false), skill("a", true), skill("b", false)],
            "c",
        );
        assert_eq!(e.message, "no skill named \"c\"");
        assert_eq!(e.hints[0], "skills: a, b");
        let e = unknown_skill(&[], "c");
        assert!(e.hints[0].contains("no skills"), "{e:?}");
    }
}
