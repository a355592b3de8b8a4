//! `finch minitool menu`: a bot's settings menu without the app — listed, an item run with its
//! dialogs on a real terminal (a QR login that stays open while the bot polls, a credential
//! form whose secret is typed without echo), and on a pipe with `--set`.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{FAST, bot, call, install, result, unique};
use crate::cards::Pty;
use crate::common::{Run, TestContext};

fn settings(ctx: &TestContext) -> Value {
    result(&call(ctx, "chat-bot_settings", json!({}), &[]))
}

fn storage(ctx: &TestContext) -> PathBuf {
    ctx.runtime.join("extension-data/chat-bot")
}

fn menu(ctx: &TestContext, args: &[&str]) -> Run {
    let mut argv = vec!["minitool", "menu"];
    argv.extend_from_slice(args);
    ctx.run(&argv)
}

#[test]
fn a_menu_is_listed_and_its_form_filled_with_set_on_a_pipe() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &bot());
    let listed = menu(&ctx, &["chat-bot"]);
    listed.success();
    assert_eq!(
        listed.stdout(),
        "status\tNot logged in  (not selectable)\nlogin\tLog in with QR code\ncredentials\tSet credentials\nbroken\tBroken item\n"
    );
    let json = menu(&ctx, &["chat-bot", "--json"]);
    assert_eq!(
        json.json()[1],
        json!({"id": "login", "label": "Log in with QR code"})
    );
    // A required field nobody gave: a clear error, and the bot was told "dismissed", so it
    // saved nothing.
    menu(&ctx, &["chat-bot", "credentials", "--set", "botId=B1"])
        .failure(2)
        .stderr_has("the dialog \"WeCom credentials\" needs Secret (secret): pass --set secret=VALUE (nothing was saved)");
    assert_eq!(
        settings(&ctx),
        json!({"account": null, "form": null, "secret": null})
    );
    let log = std::fs::read_to_string(storage(&ctx).join("menu.log")).unwrap();
    assert_eq!(log, "{\"item\":\"credentials\",\"action\":\"dismissed\"}\n");
    // All given: the primary button is pressed, the bot keeps the secret in the keyring.
    let secret = unique(&ctx, "wecom-secret");
    let set = format!("secret={secret}");
    menu(
        &ctx,
        &[
            "chat-bot",
            "Set credentials",
            "--set",
            "botId=B1",
            "--set",
            &set,
        ],
    )
    .success()
    .stderr_has("chat-bot: Set credentials done");
    assert_eq!(
        settings(&ctx),
        json!({"account": null, "form": {"botId": "B1", "region": "cn"}, "secret": secret})
    );
    ctx.run(&["secret", "list", "chat-bot"])
        .success()
        .stdout_has("bot.token");
    ctx.run(&["secret", "delete", "chat-bot", "bot.token"])
        .success();
    // Items that cannot run.
    menu(&ctx, &["chat-bot", "nope"]).failure(3).stderr_has(
        "the settings menu has no item nope (it has status, login, credentials, broken)",
    );
    menu(&ctx, &["chat-bot", "status"])
        .failure(2)
        .stderr_has("the menu item status cannot be selected now");
    menu(&ctx, &["chat-bot", "broken"])
        .failure(1)
        .stderr_has("chat-bot: the menu item failed: the login server is down");
    menu(&ctx, &["no-such-bot"])
        .failure(3)
        .stderr_has("\"no-such-bot\" is not an enabled mini tool");
    menu(&ctx, &["chat-bot", "credentials", "--set", "botId"])
        .failure(2)
        .stderr_has("--set botId: write it as KEY=VALUE");
}

/// A QR login with no terminal: the dialog's image is saved and its path printed, and the
/// dialog stays until the bot closes it (the code was scanned) — or `--wait` passes.
#[test]
fn a_qr_login_on_a_pipe_waits_for_the_bot_to_close_its_dialog() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &bot());
    menu(&ctx, &["chat-bot", "login", "--wait", "1s"])
        .failure(2)
        .stderr_has("the dialog \"Scan to log in\" was not closed within --wait 1s");
    assert_eq!(settings(&ctx)["account"], json!(null));
    std::fs::create_dir_all(storage(&ctx)).unwrap();
    std::fs::write(storage(&ctx).join("scanned"), "").unwrap();
    let run = menu(&ctx, &["chat-bot", "login"]);
    run.success().stderr_has("(closed by Chat Bot)");
    let account = settings(&ctx)["account"].clone();
    assert!(
        account.as_str().is_some_and(|a| a.starts_with("wxid_")),
        "{account}"
    );
    let path = saved_image(&run.stderr());
    let png = std::fs::read(&path).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
}

/// The path in `[QR saved to <path>: open it to scan]`.
fn saved_image(text: &str) -> PathBuf {
    let after = text
        .split("[QR saved to ")
        .nth(1)
        .unwrap_or_else(|| panic!("no saved image in {text}"));
    PathBuf::from(after.split(": open it to scan]").next().unwrap())
}

/// On a terminal: the QR dialog shows the image's path and its buttons, and closes by itself
/// once the bot saw the scan.
#[test]
fn a_qr_login_dialog_stays_open_on_the_terminal_until_the_bot_closes_it() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &bot());
    let mut pty = Pty::spawn(&ctx, &["minitool", "menu", "chat-bot", "login"]);
    pty.expect("── Chat Bot: Scan to log in ──");
    let shown = pty.expect("open it to scan]");
    pty.expect("1) Cancel: ");
    let path = saved_image(&shown);
    assert!(path.exists(), "{}", path.display());
    // Still open while nobody answers; the bot polls and sees the scan.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(settings(&ctx)["account"], json!(null));
    std::fs::write(storage(&ctx).join("scanned"), "").unwrap();
    pty.expect("(closed by Chat Bot)");
    pty.expect("chat-bot: login done");
    let (code, out) = pty.finish();
    assert_eq!(code, 0, "{out}");
    let account = settings(&ctx)["account"].clone();
    assert!(
        account.as_str().is_some_and(|a| a.starts_with("wxid_")),
        "{account}"
    );
    let log = std::fs::read_to_string(storage(&ctx).join("menu.log")).unwrap();
    assert_eq!(log, "{\"item\":\"login\",\"action\":\"scanned\"}\n");
}

/// On a terminal: each field is a prompt, the secret typed without echo.
#[test]
fn a_credential_form_is_typed_on_the_terminal_with_the_secret_unechoed() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    install(&ctx, &bot());
    let secret = unique(&ctx, "typed");
    let mut pty = Pty::spawn(&ctx, &["minitool", "menu", "chat-bot", "credentials"]);
    pty.expect("── Chat Bot: WeCom credentials ──");
    pty.expect("Bot ID: ");
    pty.send("\r");
    pty.expect("Bot ID is required");
    pty.expect("Bot ID: ");
    pty.send("B7\r");
    pty.expect("Secret: ");
    pty.send(&format!("{secret}\r"));
    pty.expect("Region (cn/intl): ");
    pty.send("mars\r");
    pty.expect("choose one of cn, intl");
    pty.send("intl\r");
    pty.expect("1) Cancel  2) Save: ");
    pty.send("2\r");
    pty.expect("chat-bot: credentials done");
    let shown = pty.seen().to_string();
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert!(
        !shown.contains(&secret) && !rest.contains(&secret),
        "the secret was echoed:\n{shown}{rest}"
    );
    assert_eq!(
        settings(&ctx),
        json!({"account": null, "form": {"botId": "B7", "region": "intl"}, "secret": secret})
    );
    ctx.run(&["secret", "delete", "chat-bot", "bot.token"])
        .success();
}
