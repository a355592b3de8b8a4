//! `finch secret`: a person sets, lists and deletes the secrets of an installed mini tool
//! (`ctx.secrets`) without the app. The value comes from standard input (typed without echo on
//! a terminal), never from an argument, which would land in the shell's history and in every
//! process listing. Only the keys the manifest's `permissions.secrets` allows are accepted, and
//! each secret is bound to the installed package (`host::runtime::secrets::Owner`): the same id
//! loaded from anywhere else reads none of them.

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::Context;
use crate::error::{CommandError, Result};
use crate::homes::{Homes, Tier};
use crate::host::runtime::secrets::{Keyring, Owner, allowed};
use crate::minitool::manifest;

#[derive(Debug, Subcommand)]
pub enum SecretCommand {
    /// Set a secret of an installed mini tool, its value read from standard input
    Set(KeyArgs),
    /// List the keys of the secrets set for an installed mini tool (never their values)
    #[command(visible_alias = "ls")]
    List(IdArgs),
    /// Delete a secret of an installed mini tool
    #[command(visible_alias = "rm")]
    Delete(KeyArgs),
}

#[derive(Debug, Args)]
pub struct IdArgs {
    /// The installed mini tool's id
    pub id: String,
}

#[derive(Debug, Args)]
pub struct KeyArgs {
    /// The installed mini tool's id
    pub id: String,
    /// The secret's key, one its manifest's permissions.secrets allows
    pub key: String,
}

/// An installed mini tool: where it is, what it may keep, whose secrets are its own.
struct Installed {
    owner: Owner,
    patterns: Vec<String>,
}

pub fn run(ctx: &Context, command: &SecretCommand) -> Result<()> {
    let homes = ctx.homes()?;
    let settings = ctx.settings()?;
    let keyring = Keyring::new(
        settings.runtime.keyring,
        &homes.runtime,
        settings.lock_timeout,
    );
    match command {
        SecretCommand::Set(args) => {
            let installed = installed(homes, &args.id)?;
            check_key(&installed, &args.id, &args.key)?;
            let value = read_value(ctx, &args.key)?;
            keyring
                .set(&installed.owner, &args.key, &value)
                .map_err(CommandError::failed)?;
            if ctx.ui.json {
                return ctx
                    .ui
                    .json(&json!({"id": args.id, "key": args.key, "set": true}));
            }
            ctx.ui
                .status(format!("Set the secret {} of {}", args.key, args.id));
            Ok(())
        }
        SecretCommand::List(args) => {
            let installed = installed(homes, &args.id)?;
            let keys = keyring
                .keys(&installed.owner)
                .map_err(CommandError::failed)?;
            if ctx.ui.json {
                return ctx.ui.json(&Value::Array(
                    keys.iter().map(|k| json!({"key": k})).collect(),
                ));
            }
            if keys.is_empty() {
                ctx.ui.status(format!("No secrets are set for {}", args.id));
                return Ok(());
            }
            ctx.ui.lines(keys)
        }
        SecretCommand::Delete(args) => {
            let installed = installed(homes, &args.id)?;
            check_key(&installed, &args.id, &args.key)?;
            let had = keyring
                .delete(&installed.owner, &args.key)
                .map_err(CommandError::failed)?;
            if !had {
                return Err(CommandError::not_found(format!(
                    "{} has no secret {}",
                    args.id, args.key
                ))
                .with_hint(format!(
                    "`finch secret list {}` names the keys set",
                    args.id
                )));
            }
            if ctx.ui.json {
                return ctx
                    .ui
                    .json(&json!({"id": args.id, "key": args.key, "deleted": true}));
            }
            ctx.ui
                .status(format!("Deleted the secret {} of {}", args.key, args.id));
            Ok(())
        }
    }
}

/// The installed mini tool `id`, as the runtime runs it: the personal tier's, else the
/// global tier's.
fn installed(homes: &Homes, id: &str) -> Result<Installed> {
    let not_installed = || {
        CommandError::not_found(format!("no mini tool {id} is installed")).with_hint(
            "`finch list` shows the installed mini tools; secrets belong to an installed one",
        )
    };
    if !crate::minitool::tier::is_entry_name(id) {
        return Err(not_installed());
    }
    for (tier, origin) in [(Tier::Personal, "personal"), (Tier::Global, "global")] {
        let dir: PathBuf = homes.tier_dir(tier).join(id);
        if std::fs::symlink_metadata(&dir).is_err() {
            continue;
        }
        let m = manifest::load(&dir)
            .map_err(|e| {
                CommandError::failed(format!("{id}: its manifest cannot be read: {e}"))
                    .with_hint(format!("`finch doctor {}` says what to fix", dir.display()))
            })?
            .ok_or_else(|| {
                CommandError::failed(format!(
                    "{id}: {} is not a mini tool (no finch.json, and no package.json with a \"finch\" object)",
                    dir.display()
                ))
            })?;
        let patterns = m
            .permissions()
            .and_then(|p| p.get("secrets"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        return Ok(Installed {
            owner: Owner::new(id, origin, &m.dir, m.package_name.as_deref()),
            patterns,
        });
    }
    Err(not_installed())
}

fn check_key(installed: &Installed, id: &str, key: &str) -> Result<()> {
    if allowed(&installed.patterns, key) {
        return Ok(());
    }
    let declared = if installed.patterns.is_empty() {
        "it declares none".to_string()
    } else {
        format!("it declares {}", installed.patterns.join(", "))
    };
    Err(CommandError::usage(format!(
        "{id} may not keep the secret {key}: the key is not in its manifest's permissions.secrets ({declared})"
    ))
    .with_code("secret_not_declared"))
}

/// The value: typed without echo on a terminal, else all of standard input, without one
/// trailing newline.
fn read_value(ctx: &Context, key: &str) -> Result<String> {
    let mut value = if ctx.ui.stdin_tty {
        crate::ui::read_hidden(&format!("Value of {key}: "))
            .map_err(|e| CommandError::failed(format!("cannot read the value: {e}")))?
    } else {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            CommandError::failed(format!("cannot read the value from standard input: {e}"))
        })?;
        text
    };
    if value.ends_with('\n') {
        value.pop();
        if value.ends_with('\r') {
            value.pop();
        }
    }
    if value.is_empty() {
        return Err(CommandError::usage(format!(
            "no value for {key} on standard input (pipe it in: `printf %s \"$VALUE\" | finch secret set ID {key}`)"
        ))
        .with_code("no_value"));
    }
    Ok(value)
}
