//! The task file, `<runtime>/automation/tasks.json`: `{"tasks": [ {task}, … ]}`. Reading never
//! fails on one bad entry (it is reported as broken and kept as it is); every change takes the
//! automation directory's lock, rereads the file, changes one entry and replaces the file
//! atomically. Keys finch does not know, at the top level and in every task, are kept in place.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::schedule::zone::Zone;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::ScheduleError;
use super::timing::{FieldError, Schedule, parse_zone};
use crate::homes::Homes;
use crate::ids;
use crate::store::{DirLock, read_json_object, write_json};

/// Reasoning effort levels accepted by `--effort`.
pub const EFFORTS: [&str; 6] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/// Whether the agent asks before tool calls (`ask`) or runs fast-lane tools at once
/// (`acceptCalls`, the default for scheduled runs; SPEC §8.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    Ask,
    #[default]
    AcceptCalls,
}

impl PermissionMode {
    pub fn parse(text: &str) -> Result<PermissionMode, FieldError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "ask" => Ok(PermissionMode::Ask),
            "acceptcalls" | "accept-calls" => Ok(PermissionMode::AcceptCalls),
            _ => Err(FieldError::new(
                "mode",
                text,
                "unknown permission mode (use ask or acceptCalls)",
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Ask => "ask",
            PermissionMode::AcceptCalls => "acceptCalls",
        }
    }
}

/// Where a task runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Target {
    /// The agent home.
    #[default]
    AgentHome,
    /// A space, by id: its bound directory, or the agent home when it has none.
    Space(String),
    /// An absolute directory.
    Cwd(PathBuf),
}

impl Target {
    fn to_json(&self) -> Option<Value> {
        match self {
            Target::AgentHome => None,
            Target::Space(id) => Some(json!({ "space": id })),
            Target::Cwd(dir) => Some(json!({ "cwd": dir.to_string_lossy() })),
        }
    }

    fn from_json(value: Option<&Value>) -> Result<Target, String> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return Ok(Target::AgentHome);
        };
        let text = |k: &str| {
            value
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        if let Some(id) = text("space") {
            return Ok(Target::Space(id.to_string()));
        }
        match text("cwd") {
            Some(dir) if Path::new(dir).is_absolute() => Ok(Target::Cwd(PathBuf::from(dir))),
            _ => Err(format!(
                "\"target\" must be {{\"space\": id}} or {{\"cwd\": absolute path}}, not {value}"
            )),
        }
    }
}

/// One scheduled task, as read from the file.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    pub name: String,
    pub prompt: String,
    pub schedule: Schedule,
    pub timezone: Zone,
    pub target: Target,
    pub model: Option<String>,
    pub reasoning_effort: Option<String>,
    pub permission_mode: PermissionMode,
    /// The run's time limit when the task sets its own.
    pub timeout: Option<Duration>,
    pub enabled: bool,
    /// `catchUp`: a fire time missed while no daemon ran (or the machine slept) is run once,
    /// when the daemon next gets to it, as systemd's `Persistent=` or anacron do. Off by default.
    pub catch_up: bool,
    pub created_at: String,
    pub updated_at: String,
    /// The entry as stored, so that keys finch does not know survive a rewrite.
    raw: Map<String, Value>,
}

impl Task {
    /// The task as stored in the file.
    pub fn to_json(&self) -> Value {
        let mut map = self.raw.clone();
        let mut put = |key: &str, value: Option<Value>| match value {
            Some(v) => {
                map.insert(key.to_string(), v);
            }
            None => {
                map.shift_remove(key);
            }
        };
        put("id", Some(self.id.clone().into()));
        put("name", Some(self.name.clone().into()));
        put("prompt", Some(self.prompt.clone().into()));
        put("schedule", Some(self.schedule.to_string().into()));
        put("timezone", Some(self.timezone.name().into()));
        put("target", self.target.to_json());
        put("model", self.model.clone().map(Value::from));
        put(
            "reasoningEffort",
            self.reasoning_effort.clone().map(Value::from),
        );
        put("permissionMode", Some(self.permission_mode.as_str().into()));
        put("timeoutSeconds", self.timeout.map(|t| t.as_secs().into()));
        put("enabled", Some(self.enabled.into()));
        // Written only when on, so that tasks without it look as they always did.
        put("catchUp", self.catch_up.then_some(Value::Bool(true)));
        put("createdAt", Some(self.created_at.clone().into()));
        put("updatedAt", Some(self.updated_at.clone().into()));
        Value::Object(map)
    }

    /// Reads a task object as stored; the error says what is wrong with it.
    pub fn from_json(value: Value) -> Result<Task, String> {
        let Value::Object(mut raw) = value else {
            return Err(format!("not an object: {value}"));
        };
        // The known strings are moved out (`to_json` writes every known key back in its place),
        // so a thousand tasks are read without copying their prompts.
        let mut text = |key: &str| match raw.get_mut(key) {
            Some(Value::String(s)) => Some(std::mem::take(s)),
            _ => None,
        };
        let id = text("id");
        let name = text("name");
        let prompt = text("prompt");
        let schedule_text = text("schedule");
        let timezone_name = text("timezone");
        let mode = text("permissionMode");
        let model = text("model").filter(|s| !s.is_empty());
        let reasoning_effort = text("reasoningEffort").filter(|s| !s.is_empty());
        let created_at = text("createdAt").unwrap_or_default();
        let updated_at = text("updatedAt").unwrap_or_default();
        let missing = |key: &str| format!("\"{key}\" is missing");
        let id = id.ok_or_else(|| missing("id"))?;
        let prompt = prompt.ok_or_else(|| missing("prompt"))?;
        let schedule_text = schedule_text.ok_or_else(|| missing("schedule"))?;
        let timezone = match timezone_name {
            Some(name) => parse_zone(&name).map_err(|e| e.to_string())?,
            None => Zone::UTC,
        };
        let schedule = Schedule::parse(&schedule_text, timezone).map_err(|e| e.to_string())?;
        let permission_mode = match mode {
            Some(mode) => PermissionMode::parse(&mode).map_err(|e| e.to_string())?,
            None => PermissionMode::default(),
        };
        let timeout = raw
            .get("timeoutSeconds")
            .and_then(Value::as_u64)
            .filter(|s| *s > 0)
            .map(Duration::from_secs);
        Ok(Task {
            id,
            name: name.unwrap_or_default(),
            prompt,
            schedule,
            timezone,
            target: Target::from_json(raw.get("target"))?,
            model,
            reasoning_effort,
            permission_mode,
            timeout,
            enabled: raw.get("enabled").and_then(Value::as_bool).unwrap_or(true),
            catch_up: raw.get("catchUp").and_then(Value::as_bool).unwrap_or(false),
            created_at,
            updated_at,
            raw,
        })
    }

    /// The next fire time after `now`, for enabled and disabled tasks alike.
    pub fn next_after(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.schedule.next_after(self.timezone, now)
    }
}

/// A task entry that could not be read; it is left in the file as it is.
#[derive(Debug, Clone)]
pub struct BrokenTask {
    /// Position in the `tasks` list, from 0.
    pub index: usize,
    pub id: Option<String>,
    pub reason: String,
}

/// The task file as read.
#[derive(Debug, Clone, Default)]
pub struct TaskFile {
    pub tasks: Vec<Task>,
    pub broken: Vec<BrokenTask>,
}

impl TaskFile {
    pub fn find(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// The id of the task `query` names: its whole id, else its name, else the beginning of
    /// its id (each ignoring case, `ids::pick`). An entry that cannot be read answers to its
    /// id and the beginning of it only. Several tasks of one name, or ids that begin alike,
    /// are `AmbiguousTask`.
    pub fn resolve_id(&self, query: &str) -> Result<String, ScheduleError> {
        let query = query.trim();
        let mut named: Vec<(&str, Option<&str>)> = self
            .tasks
            .iter()
            .map(|t| (t.id.as_str(), Some(t.name.as_str())))
            .collect();
        named.extend(
            self.broken
                .iter()
                .filter_map(|b| Some((b.id.as_deref()?, None))),
        );
        let id = |(id, _): &(&str, Option<&str>)| ids::same(id, query);
        let name =
            |(_, name): &(&str, Option<&str>)| name.is_some_and(|n| ids::same(n.trim(), query));
        let begins = |(id, _): &(&str, Option<&str>)| ids::begins(id, query);
        if query.is_empty() {
            return Err(ScheduleError::UnknownTask(query.to_string()));
        }
        match ids::pick(named, &[&id, &name, &begins]) {
            ids::Picked::One((id, _)) => Ok(id.to_string()),
            ids::Picked::Nothing => Err(ScheduleError::UnknownTask(query.to_string())),
            ids::Picked::Several(candidates) => Err(ScheduleError::AmbiguousTask {
                query: query.to_string(),
                candidates: candidates
                    .into_iter()
                    .map(|(id, name)| (id.to_string(), name.unwrap_or("").to_string()))
                    .collect(),
            }),
        }
    }
}

/// What `create` needs.
#[derive(Debug, Clone)]
pub struct NewTask {
    pub name: String,
    pub prompt: String,
    pub schedule: Schedule,
    pub timezone: Zone,
    pub target: Target,
    pub model: Option<String>,
    pub reasoning_effort: Option<String>,
    pub permission_mode: PermissionMode,
    pub timeout: Option<Duration>,
}

/// What `update` changes; `None` leaves a field as it is. For the optional fields,
/// `Some(None)` clears the field.
#[derive(Debug, Clone, Default)]
pub struct TaskChanges {
    pub name: Option<String>,
    pub prompt: Option<String>,
    pub schedule: Option<Schedule>,
    pub timezone: Option<Zone>,
    pub target: Option<Target>,
    pub model: Option<Option<String>>,
    pub reasoning_effort: Option<Option<String>>,
    pub permission_mode: Option<PermissionMode>,
    pub timeout: Option<Option<Duration>>,
    pub enabled: Option<bool>,
}

/// Reads the task file; a missing file has no tasks.
pub fn load(homes: &Homes) -> Result<TaskFile, ScheduleError> {
    let path = homes.tasks_json();
    let doc = read_json_object(&path)?.unwrap_or_default();
    entries(&doc, &path)?;
    match doc.into_iter().find(|(k, _)| k == "tasks") {
        Some((_, Value::Array(items))) => Ok(parse_items(items)),
        _ => Ok(TaskFile::default()),
    }
}

fn entries<'a>(doc: &'a Map<String, Value>, path: &Path) -> Result<&'a [Value], ScheduleError> {
    match doc.get("tasks") {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(ScheduleError::BadFile {
            path: path.to_path_buf(),
            reason: "\"tasks\" must be a list".to_string(),
        }),
    }
}

fn parse_items(items: Vec<Value>) -> TaskFile {
    let mut file = TaskFile::default();
    for (index, item) in items.into_iter().enumerate() {
        let id = item.get("id").and_then(Value::as_str).map(str::to_string);
        match Task::from_json(item) {
            Ok(task) => file.tasks.push(task),
            Err(reason) => file.broken.push(BrokenTask { index, id, reason }),
        }
    }
    file
}

/// ISO-8601 UTC with milliseconds, the form of every timestamp finch writes.
pub fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn check_text(field: &'static str, value: &str) -> Result<(), ScheduleError> {
    if value.trim().is_empty() {
        return Err(FieldError::new(field, value, "must not be empty").into());
    }
    Ok(())
}

/// Checks that the schedule fires again after `now`.
fn check_fires(schedule: &Schedule, tz: Zone, now: DateTime<Utc>) -> Result<(), ScheduleError> {
    if schedule.next_after(tz, now).is_some() {
        return Ok(());
    }
    let value = schedule.value();
    let value = value.as_str();
    Err(match schedule.kind_name() {
        "once" => FieldError::new(
            "once",
            value,
            format!("is in the past (it is now {})", timestamp(now)),
        ),
        kind => FieldError::new(
            if kind == "cron" { "cron" } else { "schedule" },
            value,
            "never fires (no date matches it)",
        ),
    }
    .into())
}

pub fn check_effort(value: &str) -> Result<(), FieldError> {
    if EFFORTS.contains(&value) {
        Ok(())
    } else {
        Err(FieldError::new(
            "effort",
            value,
            format!("unknown reasoning effort (use {})", EFFORTS.join(", ")),
        ))
    }
}

/// Runs `change` on the task file under the automation directory's lock and writes it back.
fn change<T>(
    homes: &Homes,
    lock_timeout: Duration,
    change: impl FnOnce(&mut Vec<Value>, &TaskFile) -> Result<T, ScheduleError>,
) -> Result<T, ScheduleError> {
    let path = homes.tasks_json();
    let dir = path.parent().unwrap_or(&homes.runtime).to_path_buf();
    let _lock = DirLock::acquire(&dir, &path.display().to_string(), lock_timeout)?;
    let mut doc = read_json_object(&path)?.unwrap_or_default();
    let mut items = entries(&doc, &path)?.to_vec();
    let file = parse_items(items.clone());
    let out = change(&mut items, &file)?;
    doc.insert("tasks".to_string(), Value::Array(items));
    write_json(&path, &Value::Object(doc))?;
    Ok(out)
}

fn index_of(items: &[Value], id: &str) -> Result<usize, ScheduleError> {
    items
        .iter()
        .position(|v| v.get("id").and_then(Value::as_str) == Some(id))
        .ok_or_else(|| ScheduleError::UnknownTask(id.to_string()))
}

/// Adds a task; its schedule must fire after `now`.
pub fn create(
    homes: &Homes,
    new: NewTask,
    now: DateTime<Utc>,
    lock_timeout: Duration,
) -> Result<Task, ScheduleError> {
    create_with(homes, new, false, now, lock_timeout)
}

/// `create`, with `catchUp` set as given.
pub fn create_with(
    homes: &Homes,
    new: NewTask,
    catch_up: bool,
    now: DateTime<Utc>,
    lock_timeout: Duration,
) -> Result<Task, ScheduleError> {
    check_text("name", &new.name)?;
    check_text("prompt", &new.prompt)?;
    if let Some(effort) = &new.reasoning_effort {
        check_effort(effort)?;
    }
    check_fires(&new.schedule, new.timezone, now)?;
    change(homes, lock_timeout, |items, file| {
        let mut taken: Vec<&str> = file.tasks.iter().map(|t| t.id.as_str()).collect();
        taken.extend(file.broken.iter().filter_map(|b| b.id.as_deref()));
        let stamp = timestamp(now);
        let task = Task {
            id: ids::new_task_id(&taken),
            name: new.name,
            prompt: new.prompt,
            schedule: new.schedule,
            timezone: new.timezone,
            target: new.target,
            model: new.model,
            reasoning_effort: new.reasoning_effort,
            permission_mode: new.permission_mode,
            timeout: new.timeout,
            enabled: true,
            catch_up,
            created_at: stamp.clone(),
            updated_at: stamp,
            raw: Map::new(),
        };
        items.push(task.to_json());
        Ok(task)
    })
}

/// Changes a task. A changed schedule or time zone must fire after `now`.
pub fn update(
    homes: &Homes,
    id: &str,
    changes: TaskChanges,
    now: DateTime<Utc>,
    lock_timeout: Duration,
) -> Result<Task, ScheduleError> {
    update_with(homes, id, changes, None, now, lock_timeout)
}

/// `update`, also setting `catchUp` when `catch_up` is given.
pub fn update_with(
    homes: &Homes,
    id: &str,
    changes: TaskChanges,
    catch_up: Option<bool>,
    now: DateTime<Utc>,
    lock_timeout: Duration,
) -> Result<Task, ScheduleError> {
    if let Some(name) = &changes.name {
        check_text("name", name)?;
    }
    if let Some(prompt) = &changes.prompt {
        check_text("prompt", prompt)?;
    }
    if let Some(Some(effort)) = &changes.reasoning_effort {
        check_effort(effort)?;
    }
    change(homes, lock_timeout, |items, file| {
        let id = &file.resolve_id(id)?;
        let index = index_of(items, id)?;
        let mut task = match file.find(id) {
            Some(t) => t.clone(),
            None => {
                let reason = file
                    .broken
                    .iter()
                    .find(|b| b.index == index)
                    .map(|b| b.reason.clone())
                    .unwrap_or_default();
                return Err(ScheduleError::BrokenTask {
                    id: id.to_string(),
                    reason,
                });
            }
        };
        let retimed = changes.schedule.is_some() || changes.timezone.is_some();
        let TaskChanges {
            name,
            prompt,
            schedule,
            timezone,
            target,
            model,
            reasoning_effort,
            permission_mode,
            timeout,
            enabled,
        } = changes;
        if let Some(v) = name {
            task.name = v;
        }
        if let Some(v) = prompt {
            task.prompt = v;
        }
        if let Some(v) = timezone {
            task.timezone = v;
        }
        if let Some(v) = schedule {
            task.schedule = v;
        }
        if let Some(v) = target {
            task.target = v;
        }
        if let Some(v) = model {
            task.model = v;
        }
        if let Some(v) = reasoning_effort {
            task.reasoning_effort = v;
        }
        if let Some(v) = permission_mode {
            task.permission_mode = v;
        }
        if let Some(v) = timeout {
            task.timeout = v;
        }
        if let Some(v) = enabled {
            task.enabled = v;
        }
        if let Some(v) = catch_up {
            task.catch_up = v;
        }
        if retimed {
            check_fires(&task.schedule, task.timezone, now)?;
        }
        task.updated_at = timestamp(now);
        items[index] = task.to_json();
        task.raw = match &items[index] {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        Ok(task)
    })
}

/// Removes a task from the file (its run history stays). Returns the entry as it was stored.
pub fn delete(homes: &Homes, id: &str, lock_timeout: Duration) -> Result<Value, ScheduleError> {
    change(homes, lock_timeout, |items, file| {
        let index = index_of(items, &file.resolve_id(id)?)?;
        Ok(items.remove(index))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn homes(dir: &Path) -> Homes {
        Homes {
            runtime: dir.join("rt"),
            agent: dir.join("agent"),
            agent_source: crate::homes::AgentHomeSource::Flag,
        }
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-04-01T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn new_task(schedule: Schedule) -> NewTask {
        NewTask {
            name: "News".into(),
            prompt: "Summarise the news".into(),
            schedule,
            timezone: parse_zone("Europe/Berlin").unwrap(),
            target: Target::Cwd(PathBuf::from("/srv/news")),
            model: Some("m1".into()),
            reasoning_effort: None,
            permission_mode: PermissionMode::default(),
            timeout: Some(Duration::from_secs(600)),
        }
    }

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn create_update_delete_keep_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let h = homes(dir.path());
        std::fs::create_dir_all(h.tasks_json().parent().unwrap()).unwrap();
        std::fs::write(
            h.tasks_json(),
            r#"{"version":3,"tasks":[{"id":"t-app001","name":"App","prompt":"p","schedule":"daily 08:00","timezone":"UTC","appColor":"blue"},{"id":"t-bad","schedule":"sometimes"}]}"#,
        )
        .unwrap();
        let task = create(
            &h,
            new_task(Schedule::daily("09:00").unwrap()),
            now(),
            SECOND,
        )
        .unwrap();
        assert!(task.id.starts_with("t-") && task.id.len() == 8);
        let stored = std::fs::read_to_string(h.tasks_json()).unwrap();
        let doc: Value = serde_json::from_str(&stored).unwrap();
        assert_eq!(doc["version"], 3);
        assert_eq!(doc["tasks"][0]["appColor"], "blue");
        assert_eq!(doc["tasks"][1]["schedule"], "sometimes");
        assert_eq!(
            doc["tasks"][2],
            json!({
                "id": task.id, "name": "News", "prompt": "Summarise the news",
                "schedule": "daily 09:00", "timezone": "Europe/Berlin",
                "target": {"cwd": "/srv/news"}, "model": "m1",
                "permissionMode": "acceptCalls", "timeoutSeconds": 600, "enabled": true,
                "createdAt": "2026-04-01T10:00:00.000Z", "updatedAt": "2026-04-01T10:00:00.000Z"
            })
        );
        assert!(stored.starts_with("{\n  \"version\": 3,") && stored.ends_with("}\n"));

        let later = now() + chrono::TimeDelta::hours(1);
        let changes = TaskChanges {
            enabled: Some(false),
            model: Some(None),
            ..Default::default()
        };
        update(&h, "t-app001", changes, later, SECOND).unwrap();
        let file = load(&h).unwrap();
        assert_eq!(file.tasks.len(), 2);
        assert_eq!(file.broken.len(), 1);
        assert_eq!(file.broken[0].id.as_deref(), Some("t-bad"));
        let app = file.find("t-app001").unwrap();
        assert!(!app.enabled);
        let app_json = app.to_json();
        assert_eq!(app_json["appColor"], "blue");
        assert_eq!(app_json["updatedAt"], "2026-04-01T11:00:00.000Z");
        let keys: Vec<&String> = app_json.as_object().unwrap().keys().collect();
        assert_eq!(keys[..2], ["id", "name"]);

        assert!(matches!(
            update(&h, "t-bad", TaskChanges::default(), later, SECOND),
            Err(ScheduleError::BrokenTask { .. })
        ));
        assert!(matches!(
            update(&h, "t-none00", TaskChanges::default(), later, SECOND),
            Err(ScheduleError::UnknownTask(_))
        ));
        let removed = delete(&h, &task.id, SECOND).unwrap();
        assert_eq!(removed["name"], "News");
        assert!(load(&h).unwrap().find(&task.id).is_none());
    }

    #[test]
    fn nothing_is_written_for_a_schedule_that_never_fires() {
        let dir = tempfile::tempdir().unwrap();
        let h = homes(dir.path());
        let tz = parse_zone("UTC").unwrap();
        let past = Schedule::once("2026-03-01T00:00:00Z", tz).unwrap();
        let err = create(&h, new_task(past), now(), SECOND).unwrap_err();
        assert!(
            matches!(&err, ScheduleError::Invalid(f) if f.field == "once" && f.reason.starts_with("is in the past")),
            "{err:?}"
        );
        let never = Schedule::cron("0 0 31 2 *").unwrap();
        let err = create(&h, new_task(never), now(), SECOND).unwrap_err();
        assert!(
            matches!(&err, ScheduleError::Invalid(f) if f.field == "cron"),
            "{err:?}"
        );
        let mut empty = new_task(Schedule::hourly("").unwrap());
        empty.prompt = " ".into();
        assert!(create(&h, empty, now(), SECOND).is_err());
        assert!(!h.tasks_json().exists());
    }
}
