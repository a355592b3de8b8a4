//! The `Schedule` dispatcher (SPEC §6, §8.1): list, create, update, enable, disable, delete, run
//! and show the history of scheduled tasks through the same `crate::schedule` functions as
//! `finch schedule`. The parameters mirror the command's flags (one of `hourly`, `daily`,
//! `weekdays`, `weekly`, `cron`, `once` is the schedule) and are turned into the command's own
//! argument structs, so validation, messages and the `--json` shapes are the command's.
//!
//! A model's call is its own confirmation: `delete` does not ask (the gateway already let the
//! call through). "Now" is the host's clock (`FINCH_NOW` when set); runs use the system clock,
//! as `finch schedule run` does.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::super::output::{Content, ToolOutput};
use super::{About, Action, ActionError, Suite};
use crate::error::CommandError;
use crate::host::call::context::CallCx;
use crate::host::env::HostEnv;
use crate::schedule::history::{self, RunStatus, Trigger};
use crate::schedule::report::{
    TaskSettings, When, find_task, history_task, invalid, listed_task_json, local_zone_in, mode_of,
    outcome, runner_for, schedule_of, target_in, task_json, timeout_of,
};
use crate::schedule::runner::Cancel;
use crate::schedule::tasks::{self, NewTask, TaskChanges, TaskFile};
use crate::schedule::timing::parse_zone;

/// The CLI's default number of history records.
const DEFAULT_HISTORY: u64 = 20;
/// The parameters that give a schedule, one at most.
const WHEN: [&str; 6] = ["hourly", "daily", "weekdays", "weekly", "cron", "once"];
const WHEN_HINT: &str = "give one of hourly (\":MM\"), daily (\"HH:MM\"), weekdays (\"HH:MM\"), weekly (\"DAY HH:MM\"), cron (\"EXPR\") or once (\"DATETIME\")";

pub struct ScheduleSuite;

const ABOUT: About = About {
    name: "Schedule",
    title: "Schedule",
    description: "Scheduled tasks: prompts the agent runs on a schedule (hourly, daily, weekdays, weekly, \
     cron or once). List, create, update, enable, disable, delete, run now, and read the run \
     history.",
    keywords: "schedule scheduled tasks automation cron job timer recurring every day daily weekly hourly at a time, run later, run now, pause, delete, run history results. 定时任务 计划任务 定时执行 每天 每周 每小时 自动化 定时 提醒 周期任务 立即运行 暂停任务 删除任务 运行历史 执行记录 定時任務 排程 排程任務 定時執行 每天 每週 自動化 立即執行 暫停 刪除任務 執行紀錄",
};

impl Suite for ScheduleSuite {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn actions(&self) -> Vec<Action> {
        let id = json!({"type": "string", "description": "The task: its id (t-…) as list shows it, its name, or the beginning of its id"});
        let task_properties = |for_update: bool| {
            let clears = if for_update {
                "; an empty string clears it"
            } else {
                ""
            };
            let mut props = Map::new();
            if for_update {
                props.insert("id".into(), id.clone());
            }
            let (name, prompt) = if for_update {
                ("A new name", "A new prompt")
            } else {
                (
                    "A name to recognise the task by",
                    "What the agent is asked to do",
                )
            };
            let described = [
                ("name", name.to_string()),
                ("prompt", prompt.to_string()),
                ("hourly", "Run every hour at minute \":MM\" (\"\" or \":00\" for the full hour)".into()),
                ("daily", "Run every day at \"HH:MM\"".into()),
                ("weekdays", "Run Monday to Friday at \"HH:MM\"".into()),
                ("weekly", "Run every week: \"DAY HH:MM\", DAY one of mon…sun".into()),
                ("cron", "Run on a five-field cron expression (minute hour day-of-month month day-of-week)".into()),
                ("once", "Run once at an ISO date-time (without an offset: in the task's time zone)".into()),
                ("tz", "Time zone, an IANA name such as Europe/Berlin (default: the local zone)".into()),
                ("space", format!("Run in this space's directory (space id or name){clears}")),
                ("cwd", format!("Run in this directory, relative to the session's working directory (default: the agent home){clears}")),
                ("model", format!("Model for the agent{clears}")),
                ("effort", format!("Reasoning effort: off, minimal, low, medium, high or xhigh{clears}")),
            ];
            for (key, description) in described {
                props.insert(
                    key.into(),
                    json!({"type": "string", "description": description}),
                );
            }
            props.insert(
                "mode".into(),
                json!({"type": "string", "enum": ["ask", "acceptCalls"], "description": "Permission mode of the run: ask or acceptCalls (default acceptCalls)"}),
            );
            props.insert(
                "timeout".into(),
                json!({"type": "string", "description": format!("Stop a run after this long, e.g. 45m (default 30m){clears}")}),
            );
            props.insert(
                "catchUp".into(),
                json!({"type": "boolean", "description": "Run once at the daemon's next start when a fire time was missed while it was not running (default false)"}),
            );
            Value::Object(props)
        };
        let id_params = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {"id": id},
            "required": ["id"],
        });
        vec![
            Action {
                name: "list",
                summary: "List tasks with their schedule, next run and last result",
                params: json!({"type": "object", "additionalProperties": false, "properties": {}, "required": []}),
                example: json!({"action": "list"}),
            },
            Action {
                name: "create",
                summary: "Create a task; give exactly one of hourly, daily, weekdays, weekly, cron, once. Returns it with its next three runs",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": task_properties(false),
                    "required": ["name", "prompt"],
                }),
                example: json!({"action": "create", "name": "Morning brief", "prompt": "Summarise my unread mail", "weekdays": "08:30", "tz": "Europe/Berlin"}),
            },
            Action {
                name: "update",
                summary: "Change a task; only the given settings change (at most one schedule)",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": task_properties(true),
                    "required": ["id"],
                }),
                example: json!({"action": "update", "id": "t-3kx9", "daily": "07:00", "model": ""}),
            },
            Action {
                name: "enable",
                summary: "Enable a task",
                params: id_params.clone(),
                example: json!({"action": "enable", "id": "t-3kx9"}),
            },
            Action {
                name: "disable",
                summary: "Disable a task (it stays in the list and keeps its history)",
                params: id_params.clone(),
                example: json!({"action": "disable", "id": "t-3kx9"}),
            },
            Action {
                name: "delete",
                summary: "Delete a task at once, without asking (its run history is kept)",
                params: id_params.clone(),
                example: json!({"action": "delete", "id": "t-3kx9"}),
            },
            Action {
                name: "run",
                summary: "Run a task now and wait for it (up to its time limit); returns the run record with the output tail",
                params: id_params,
                example: json!({"action": "run", "id": "t-3kx9"}),
            },
            Action {
                name: "history",
                summary: "List recorded runs, newest first: status, exit code, session id, output tail",
                params: json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "id": {"type": "string", "description": "Only this task's runs (default: every task's)"},
                        "limit": {"type": "integer", "minimum": 0, "description": "How many runs (default 20)"},
                    },
                    "required": [],
                }),
                example: json!({"action": "history", "id": "t-3kx9", "limit": 5}),
            },
        ]
    }

    fn run(
        &mut self,
        action: &str,
        args: &Map<String, Value>,
        cx: &mut CallCx,
    ) -> Result<ToolOutput, ActionError> {
        let env = cx.env;
        match action {
            "list" => list(env),
            "create" => create(args, cx),
            "update" => update(args, cx),
            "enable" => enable(args, env, true),
            "disable" => enable(args, env, false),
            "delete" => delete(args, env),
            "run" => run_now(args, env),
            "history" => history_of(args, env),
            other => Err(ActionError::new(format!("Schedule has no action {other}"))),
        }
    }
}

fn text(args: &Map<String, Value>, key: &str) -> Option<String> {
    super::text(args, key).map(str::to_string)
}

fn id(args: &Map<String, Value>) -> String {
    text(args, "id").unwrap_or_default()
}

fn load(env: &HostEnv) -> Result<TaskFile, ActionError> {
    Ok(tasks::load(&env.homes).map_err(CommandError::from)?)
}

fn list(env: &HostEnv) -> Result<ToolOutput, ActionError> {
    let now = env.now_utc();
    let file = load(env)?;
    let ids: Vec<&str> = file.tasks.iter().map(|t| t.id.as_str()).collect();
    let mut last_runs = history::last_runs(&env.homes, &ids);
    let items: Vec<Value> = file
        .tasks
        .iter()
        .map(|t| {
            let next = t.enabled.then(|| t.next_after(now)).flatten();
            listed_task_json(t, next, last_runs.remove(&t.id).as_ref())
        })
        .collect();
    let mut output = if items.is_empty() {
        ToolOutput {
            content: vec![Content::Text(
                "No scheduled tasks yet; create one with {\"action\": \"create\", …}.".into(),
            )],
            structured: Some(Value::Array(Vec::new())),
            is_error: false,
        }
    } else {
        ToolOutput::json(Value::Array(items))
    };
    for broken in &file.broken {
        output.content.push(Content::Text(format!(
            "warning: task {} ({}) in {} cannot be read: {}; it needs fixing by hand",
            broken.index + 1,
            broken.id.as_deref().unwrap_or("no id"),
            env.homes.tasks_json().display(),
            broken.reason
        )));
    }
    Ok(output)
}

/// The schedule parameters (at most one, as `finch schedule`'s flags).
fn when_of(args: &Map<String, Value>) -> Result<When, ActionError> {
    let given: Vec<&str> = WHEN.into_iter().filter(|k| args.contains_key(*k)).collect();
    if given.len() > 1 {
        return Err(
            ActionError::new(format!("give one schedule, not {}", given.join(" and ")))
                .with_hint(WHEN_HINT),
        );
    }
    Ok(When {
        hourly: text(args, "hourly"),
        daily: text(args, "daily"),
        weekdays: text(args, "weekdays"),
        weekly: text(args, "weekly").map(|w| w.split_whitespace().map(str::to_string).collect()),
        cron: text(args, "cron"),
        once: text(args, "once"),
    })
}

/// The other settings, as `finch schedule`'s flags give them.
fn options_of(args: &Map<String, Value>) -> Result<TaskSettings, ActionError> {
    if args.contains_key("space") && args.contains_key("cwd") {
        return Err(ActionError::new(
            "give `space` or `cwd`, not both: a task runs in one place",
        ));
    }
    Ok(TaskSettings {
        tz: text(args, "tz"),
        space: text(args, "space"),
        cwd: text(args, "cwd").map(PathBuf::from),
        model: text(args, "model"),
        effort: text(args, "effort"),
        mode: text(args, "mode"),
        timeout: text(args, "timeout"),
    })
}

fn create(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let env = cx.env;
    let now = env.now_utc();
    let when = when_of(args)?;
    let options = options_of(args)?;
    let tz = match &options.tz {
        Some(tz) => parse_zone(tz).map_err(invalid)?,
        None => local_zone_in(&env.env),
    };
    let schedule = schedule_of(&when, tz)?
        .ok_or_else(|| ActionError::new("a task needs a schedule").with_hint(WHEN_HINT))?;
    let target = target_in(&env.homes, &cx.session.cwd, &options)?.unwrap_or_default();
    let new = NewTask {
        name: text(args, "name").unwrap_or_default(),
        prompt: text(args, "prompt").unwrap_or_default(),
        schedule,
        timezone: tz,
        target,
        model: options.model.clone().filter(|m| !m.is_empty()),
        reasoning_effort: options.effort.clone().filter(|e| !e.is_empty()),
        permission_mode: mode_of(&options)?.unwrap_or_default(),
        timeout: timeout_of(&options)?.flatten(),
    };
    let catch_up = args
        .get("catchUp")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let task = tasks::create_with(&env.homes, new, catch_up, now, env.settings.lock_timeout)
        .map_err(CommandError::from)?;
    let mut output = ToolOutput::json(task_json(&task, now));
    if env.settings.agent_command.is_none() {
        output.content.push(Content::Text(format!(
            "warning: no agent command is configured yet; runs fail until `[agent] command` is set in {}",
            env.homes.finch_toml().display()
        )));
    }
    Ok(output)
}

fn update(args: &Map<String, Value>, cx: &mut CallCx) -> Result<ToolOutput, ActionError> {
    let env = cx.env;
    let now = env.now_utc();
    let id = id(args);
    let when = when_of(args)?;
    let options = options_of(args)?;
    let file = load(env)?;
    let current = find_task(&file, &id)?;
    let timezone = match &options.tz {
        Some(tz) => Some(parse_zone(tz).map_err(invalid)?),
        None => None,
    };
    let changes = TaskChanges {
        name: text(args, "name"),
        prompt: text(args, "prompt"),
        schedule: schedule_of(&when, timezone.unwrap_or(current.timezone))?,
        timezone,
        target: target_in(&env.homes, &cx.session.cwd, &options)?,
        model: options
            .model
            .clone()
            .map(|m| Some(m).filter(|m| !m.is_empty())),
        reasoning_effort: options
            .effort
            .clone()
            .map(|e| Some(e).filter(|e| !e.is_empty())),
        permission_mode: mode_of(&options)?,
        timeout: timeout_of(&options)?,
        enabled: None,
    };
    let catch_up = args.get("catchUp").and_then(Value::as_bool);
    let task = tasks::update_with(
        &env.homes,
        &id,
        changes,
        catch_up,
        now,
        env.settings.lock_timeout,
    )
    .map_err(CommandError::from)?;
    Ok(ToolOutput::json(task_json(&task, now)))
}

fn enable(
    args: &Map<String, Value>,
    env: &HostEnv,
    enabled: bool,
) -> Result<ToolOutput, ActionError> {
    let now = env.now_utc();
    let changes = TaskChanges {
        enabled: Some(enabled),
        ..Default::default()
    };
    let task = tasks::update(
        &env.homes,
        &id(args),
        changes,
        now,
        env.settings.lock_timeout,
    )
    .map_err(CommandError::from)?;
    Ok(ToolOutput::json(task_json(&task, now)))
}

fn delete(args: &Map<String, Value>, env: &HostEnv) -> Result<ToolOutput, ActionError> {
    let removed = tasks::delete(&env.homes, &id(args), env.settings.lock_timeout)
        .map_err(CommandError::from)?;
    let id = removed
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let mut output = ToolOutput::json(json!({ "deleted": removed }));
    if history::exists(&env.homes, &id) {
        output.content.push(Content::Text(format!(
            "Its run history stays in {}",
            history::path_of(&env.homes, &id).display()
        )));
    }
    Ok(output)
}

fn run_now(args: &Map<String, Value>, env: &HostEnv) -> Result<ToolOutput, ActionError> {
    let file = load(env)?;
    let task = find_task(&file, &id(args))?.clone();
    let runner = runner_for(&env.homes, &env.settings);
    runner.agent_command().map_err(CommandError::from)?;
    let record = runner
        .run(
            &task,
            Trigger::Manual,
            None,
            &Cancel::default(),
            &mut |_| {},
        )
        .map_err(CommandError::from)?;
    let summary = format!(
        "run {} of task {} \"{}\" {}",
        record.run_id,
        task.id,
        task.name,
        outcome(&record)
    );
    let value = serde_json::to_value(&record).unwrap_or_default();
    let mut output = ToolOutput::json(value);
    let lead = match record.status {
        RunStatus::Succeeded => summary,
        RunStatus::SkippedOverlap => {
            output.is_error = true;
            format!(
                "{summary}\nhint: runs of one task never overlap; wait for the other run to finish"
            )
        }
        RunStatus::Failed | RunStatus::TimedOut => {
            output.is_error = true;
            format!(
                "{summary}\nhint: the record below holds the end of its output; Schedule {{\"action\": \"history\", \"id\": \"{}\"}} lists earlier runs",
                task.id
            )
        }
    };
    output.content.insert(0, Content::Text(lead));
    Ok(output)
}

fn history_of(args: &Map<String, Value>, env: &HostEnv) -> Result<ToolOutput, ActionError> {
    let homes = &env.homes;
    let id = text(args, "id");
    let id = match id {
        Some(query) => Some(history_task(&load(env)?, homes, &query)?),
        None => None,
    };
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_HISTORY);
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let found = history::read(homes, id.as_deref(), limit).map_err(CommandError::from)?;
    let runs: Vec<Value> = found
        .runs
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .collect();
    let mut output = if runs.is_empty() {
        ToolOutput {
            content: vec![Content::Text("No runs recorded yet.".into())],
            structured: Some(Value::Array(Vec::new())),
            is_error: false,
        }
    } else {
        ToolOutput::json(Value::Array(runs))
    };
    for problem in found.problems {
        output
            .content
            .push(Content::Text(format!("warning: {problem}")));
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn the_schedule_parameters_become_the_cli_flags() {
        let zone = parse_zone("UTC").unwrap();
        let now = DateTime::parse_from_rfc3339("2026-03-07T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        for (given, want) in [
            (json!({"hourly": ""}), Some("hourly")),
            (json!({"hourly": ":15"}), Some("hourly at :15")),
            (json!({"daily": "09:30"}), Some("daily 09:30")),
            (json!({"weekdays": "08:00"}), Some("weekdays 08:00")),
            (json!({"weekly": "fri  17:00"}), Some("weekly fri 17:00")),
            (json!({"cron": "*/5 * * * *"}), Some("cron \"*/5 * * * *\"")),
            (json!({}), None),
        ] {
            let when = when_of(&args(given.clone())).unwrap();
            let schedule = schedule_of(&when, zone).unwrap();
            assert_eq!(schedule.map(|s| s.to_string()).as_deref(), want, "{given}");
        }
        let once = when_of(&args(json!({"once": "2026-03-08T09:00"}))).unwrap();
        let once = schedule_of(&once, zone).unwrap().unwrap();
        assert_eq!(
            once.upcoming(zone, now, 3)
                .into_iter()
                .map(tasks::timestamp)
                .collect::<Vec<_>>(),
            ["2026-03-08T09:00:00.000Z"]
        );
    }

    #[test]
    fn bad_schedule_parameters_say_what_to_write() {
        let zone = parse_zone("UTC").unwrap();
        let e = when_of(&args(json!({"daily": "09:00", "cron": "* * * * *"}))).unwrap_err();
        assert_eq!(e.message, "give one schedule, not daily and cron");
        assert_eq!(e.hints, [WHEN_HINT]);
        for (given, want) in [
            (json!({"weekly": "fri"}), "invalid --weekly \"fri\""),
            (json!({"daily": "25:00"}), "invalid --daily \"25:00\""),
            (json!({"cron": "nope"}), "invalid --cron \"nope\""),
        ] {
            let when = when_of(&args(given.clone())).unwrap();
            let e = ActionError::from(schedule_of(&when, zone).unwrap_err());
            assert!(e.message.starts_with(want), "{given}: {e:?}");
        }
        let e = options_of(&args(json!({"space": "a", "cwd": "/"}))).unwrap_err();
        assert!(e.message.contains("not both"), "{e:?}");
    }
}
