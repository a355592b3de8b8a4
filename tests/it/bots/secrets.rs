//! `finch secret set|list|delete`: the value from standard input only, keys the manifest
//! allows only, bound to the installed package — the same id loaded from another directory
//! (`--minitool`, even the source the install came from) reads nothing.

use serde_json::json;

use super::{FAST, bot, call, install, result, set_secret, unique};
use crate::common::TestContext;

#[cfg(target_os = "linux")]
#[test]
fn a_secret_set_from_stdin_reaches_the_installed_bot_and_no_other_package() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let source = install(&ctx, &bot());
    let value = unique(&ctx, "tok3n");
    set_secret(&ctx, "chat-bot", "bot.token", &format!("{value}\n"))
        .success()
        .stderr_has("Set the secret bot.token of chat-bot");
    // Listed by key, never by value.
    let list = ctx.run(&["secret", "list", "chat-bot"]);
    list.success();
    assert_eq!(list.stdout(), "bot.token\n");
    let listed = ctx.run(&["secret", "list", "chat-bot", "--json"]);
    assert_eq!(listed.json(), json!([{"key": "bot.token"}]));
    assert!(!listed.stdout().contains(&value) && !listed.stderr().contains(&value));
    // The installed bot reads it (the trailing newline of the pipe is not part of it).
    let got = result(&call(&ctx, "chat-bot_secret", json!({}), &[]));
    assert_eq!(got["atStart"], value.as_str(), "{got}");
    // The same package loaded from its source directory claims the id and reads nothing.
    let claimed = result(&call(
        &ctx,
        "chat-bot_secret",
        json!({"key": "bot.token"}),
        &["--minitool", &source.display().to_string()],
    ));
    assert_eq!(claimed, json!({"value": null, "atStart": null}));
    // A copy elsewhere, likewise.
    let copy = ctx.base().join("elsewhere/chat-bot");
    bot().write_to(&copy);
    let claimed = result(&call(
        &ctx,
        "chat-bot_secret",
        json!({"key": "bot.token"}),
        &["--minitool", &copy.display().to_string()],
    ));
    assert_eq!(claimed["value"], json!(null), "{claimed}");
    // What a claimant sets stays its own: the installed bot still reads the person's value.
    let got = result(&call(&ctx, "chat-bot_secret", json!({}), &[]));
    assert_eq!(got["atStart"], value.as_str());
    // The index beside the keyring names the owner and the key, never the value.
    let index = std::fs::read_to_string(ctx.runtime.join("secrets/chat-bot.json")).unwrap();
    assert!(!index.contains(&value), "{index}");
    let doc: serde_json::Value = serde_json::from_str(&index).unwrap();
    let owners = doc["owners"].as_object().unwrap();
    assert_eq!(owners.len(), 1, "{doc}");
    let owner = owners.values().next().unwrap();
    assert_eq!(owner["origin"], "personal");
    assert_eq!(owner["keys"], json!(["bot.token"]));
    assert_eq!(
        owner["path"],
        ctx.personal_tier().join("chat-bot").display().to_string()
    );
    // Deleted: gone for the bot too, and a second delete says there is none.
    ctx.run(&["secret", "delete", "chat-bot", "bot.token"])
        .success()
        .stderr_has("Deleted the secret bot.token of chat-bot");
    let got = result(&call(&ctx, "chat-bot_secret", json!({}), &[]));
    assert_eq!(got["atStart"], json!(null));
    ctx.run(&["secret", "delete", "chat-bot", "bot.token"])
        .failure(3)
        .stderr_has("chat-bot has no secret bot.token");
    let list = ctx.run(&["secret", "list", "chat-bot"]);
    list.success().stderr_has("No secrets are set for chat-bot");
    assert_eq!(list.stdout(), "");
}

#[test]
fn secret_errors_are_clear_and_change_nothing() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &bot());
    let before = ctx.tree(&ctx.runtime);
    // A key the manifest does not allow.
    set_secret(&ctx, "chat-bot", "other.key", "x")
        .failure(2)
        .stderr_has("chat-bot may not keep the secret other.key: the key is not in its manifest's permissions.secrets (it declares bot.token, bot.extra.*)");
    ctx.run(&["secret", "delete", "chat-bot", "bot.extra"])
        .failure(2)
        .stderr_has("may not keep the secret bot.extra:");
    // A mini tool that is not installed.
    set_secret(&ctx, "no-such-bot", "bot.token", "x")
        .failure(3)
        .stderr_has("no mini tool no-such-bot is installed");
    ctx.run(&["secret", "list", "../chat-bot"])
        .failure(3)
        .stderr_has("no mini tool ../chat-bot is installed");
    // No value: an empty pipe.
    set_secret(&ctx, "chat-bot", "bot.token", "")
        .failure(2)
        .stderr_has("no value for bot.token on standard input");
    set_secret(&ctx, "chat-bot", "bot.token", "\n").failure(2);
    // Never a value as an argument.
    ctx.run(&["secret", "set", "chat-bot", "bot.token", "s3cret"])
        .failure(2)
        .stderr_has("unexpected argument 's3cret'");
    assert_eq!(ctx.tree(&ctx.runtime), before, "nothing changed on disk");
}
