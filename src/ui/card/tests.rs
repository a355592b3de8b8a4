//! The pure parts of the terminal card: keys, menus, rendering at several widths.

use super::keys::*;
use super::*;
use crate::host::prompt::Choice;

fn bash_card(command: &str, risk: Risk, session_allow_offered: bool) -> Card {
    Card {
        tool: "Bash".into(),
        title: "Bash".into(),
        layer: "builtin",
        owner: None,
        risk,
        summary: command.into(),
        reason: "the command is not read-only".into(),
        session_allow_offered,
        session_scope: "this exact command only".into(),
        sandbox: None,
        unsandboxed_offered: false,
        change: None,
    }
}

fn card_menu(session_allow: bool) -> (Vec<CardChoice>, Menu) {
    let choices = CardChoice::offered(session_allow, false);
    let card = bash_card("touch x", Risk::Medium, session_allow);
    let menu = Menu::new(&card_items(&choices, &card), false, None);
    (choices, menu)
}

/// The choice a sequence of keys makes on a fresh card, if any.
fn card_choice(session_allow: bool, keys: &[Key]) -> Option<CardChoice> {
    let (choices, mut menu) = card_menu(session_allow);
    for &key in keys {
        match menu.step(key) {
            Outcome::Chosen(picked) => return picked.first().map(|&i| choices[i]),
            Outcome::Cancel => return Some(CardChoice::Deny),
            Outcome::Redraw | Outcome::Ignore => {}
        }
    }
    None
}

#[test]
fn card_keys_choose_by_number_letter_and_arrows() {
    use CardChoice::*;
    use Key::*;
    let cases: &[(bool, &[Key], Option<CardChoice>)] = &[
        (true, &[Char('1')], Some(AllowOnce)),
        (true, &[Char('2')], Some(AllowForSession)),
        (true, &[Char('3')], Some(Deny)),
        (true, &[Char('4')], Some(DenyWithReason)),
        (true, &[Char('5')], None),
        (true, &[Char('y')], Some(AllowOnce)),
        (true, &[Char('Y')], Some(AllowOnce)),
        (true, &[Char('s')], Some(AllowForSession)),
        (true, &[Char('n')], Some(Deny)),
        (true, &[Char('r')], Some(DenyWithReason)),
        (true, &[Enter], Some(AllowOnce)),
        (true, &[Down, Enter], Some(AllowForSession)),
        (
            true,
            &[Down, Down, Down, Down, Down, Enter],
            Some(DenyWithReason),
        ),
        (true, &[Down, Up, Up, Enter], Some(AllowOnce)),
        (true, &[Cancel], Some(Deny)),
        (
            true,
            &[Char('5'), Char('0'), Char('x'), Other, Backspace],
            None,
        ),
        // Without "Allow for this session" the numbers close up; letters stay.
        (false, &[Char('2')], Some(Deny)),
        (false, &[Char('3')], Some(DenyWithReason)),
        (false, &[Char('4')], None),
        (false, &[Char('s')], None),
        (false, &[Char('n')], Some(Deny)),
        (false, &[Down, Enter], Some(Deny)),
    ];
    for (offered, keys, want) in cases {
        assert_eq!(
            card_choice(*offered, keys),
            *want,
            "keys {keys:?} (session allow offered: {offered})"
        );
    }
}

#[test]
fn session_allow_is_offered_only_when_the_card_says_so() {
    assert_eq!(
        CardChoice::offered(true, false),
        [
            CardChoice::AllowOnce,
            CardChoice::AllowForSession,
            CardChoice::Deny,
            CardChoice::DenyWithReason
        ]
    );
    assert!(!CardChoice::offered(false, false).contains(&CardChoice::AllowForSession));
}

fn question_menu(options: usize, multi: bool) -> Menu {
    let mut items: Vec<Item> = (0..options)
        .map(|i| Item {
            label: format!("option {i}"),
            detail: None,
            letter: None,
            number: position_number(i),
        })
        .collect();
    items.push(Item {
        label: "Other…".into(),
        detail: None,
        letter: Some('o'),
        number: position_number(options),
    });
    Menu::new(&items, multi, Some(options))
}

#[test]
fn question_keys_pick_toggle_and_confirm() {
    use Key::*;
    let cases: &[(bool, &[Key], Outcome)] = &[
        (false, &[Char('2')], Outcome::Chosen(vec![1])),
        (false, &[Down, Down, Enter], Outcome::Chosen(vec![2])),
        (false, &[Char('o')], Outcome::Chosen(vec![3])),
        (false, &[Char('4')], Outcome::Chosen(vec![3])),
        (false, &[Cancel], Outcome::Cancel),
        (
            true,
            &[Char('1'), Char('3'), Enter],
            Outcome::Chosen(vec![0, 2]),
        ),
        (
            true,
            &[Char('1'), Char('1'), Char('2'), Enter],
            Outcome::Chosen(vec![1]),
        ),
        (
            true,
            &[Char(' '), Down, Char(' '), Enter],
            Outcome::Chosen(vec![0, 1]),
        ),
        // Enter with nothing checked answers with the item under the cursor.
        (true, &[Down, Enter], Outcome::Chosen(vec![1])),
        // "Other…" answers at once even in multi-select.
        (true, &[Char('1'), Char('o')], Outcome::Chosen(vec![3])),
        (
            true,
            &[Down, Down, Down, Char(' ')],
            Outcome::Chosen(vec![3]),
        ),
        (true, &[Cancel], Outcome::Cancel),
    ];
    for (multi, keys, want) in cases {
        let mut menu = question_menu(3, *multi);
        let mut last = Outcome::Ignore;
        for &key in *keys {
            last = menu.step(key);
        }
        assert_eq!(&last, want, "keys {keys:?} (multi: {multi})");
    }
}

#[test]
fn arrows_stop_at_the_ends() {
    let mut menu = question_menu(2, false);
    assert_eq!(menu.step(Key::Up), Outcome::Ignore);
    assert_eq!(menu.step(Key::Down), Outcome::Redraw);
    assert_eq!(menu.step(Key::Down), Outcome::Redraw);
    assert_eq!(menu.step(Key::Down), Outcome::Ignore);
    assert_eq!(menu.cursor, 2);
}

#[test]
fn bytes_decode_to_keys() {
    use Key::*;
    let cases: &[(&[u8], Parsed)] = &[
        (b"", Parsed::Empty),
        (b"1", Parsed::Key(Char('1'), 1)),
        (b"ys", Parsed::Key(Char('y'), 1)),
        (b" ", Parsed::Key(Char(' '), 1)),
        (b"\r", Parsed::Key(Enter, 1)),
        (b"\n", Parsed::Key(Enter, 1)),
        (b"\x7f", Parsed::Key(Backspace, 1)),
        (b"\x08", Parsed::Key(Backspace, 1)),
        (b"\x03", Parsed::Key(Cancel, 1)),
        (b"\x04", Parsed::Key(Cancel, 1)),
        (b"\x01", Parsed::Key(Other, 1)),
        (b"\x1b", Parsed::Incomplete),
        (b"\x1b[", Parsed::Incomplete),
        (b"\x1b[1;5", Parsed::Incomplete),
        (b"\x1b[A", Parsed::Key(Up, 3)),
        (b"\x1b[B1", Parsed::Key(Down, 3)),
        (b"\x1bOA", Parsed::Key(Up, 3)),
        (b"\x1b[C", Parsed::Key(Other, 3)),
        (b"\x1b[15~", Parsed::Key(Other, 5)),
        (b"\x1b[1;5A", Parsed::Key(Up, 6)),
        (b"\x1bx", Parsed::Key(Cancel, 1)),
        (b"\x1b[11111111111111111", Parsed::Key(Other, 19)),
        ("é".as_bytes(), Parsed::Key(Char('é'), 2)),
        ("日本".as_bytes(), Parsed::Key(Char('日'), 3)),
        (&"日".as_bytes()[..2], Parsed::Incomplete),
        (b"\xc3a", Parsed::Key(Other, 1)),
        (b"\xed\xa0\x80", Parsed::Key(Other, 1)),
        (b"\x80", Parsed::Key(Other, 1)),
        (b"\xff", Parsed::Key(Other, 1)),
    ];
    for (bytes, want) in cases {
        assert_eq!(&parse_key(bytes), want, "bytes {bytes:?}");
    }
}

#[test]
fn bytes_whose_rest_never_came_are_esc_or_noise() {
    assert_eq!(parse_stale(b"\x1b"), (Key::Cancel, 1));
    assert_eq!(parse_stale(b"\x1b["), (Key::Other, 2));
    assert_eq!(parse_stale(&"日".as_bytes()[..2]), (Key::Other, 2));
}

#[test]
fn text_from_a_model_cannot_drive_the_terminal() {
    let cases = [
        ("touch made-by-card", "touch made-by-card"),
        ("echo ü 日本", "echo ü 日本"),
        ("a\nb\tc", "a b c"),
        ("\x1b[2J\x1b[Hallow", "\\u{1b}[2J\\u{1b}[Hallow"),
        ("rm -rf x\r", "rm -rf x\\u{d}"),
        ("\u{9b}31m", "\\u{9b}31m"),
        ("ls \u{202e}fdp.exe", "ls \\u{202e}fdp.exe"),
        ("a\u{200b}b", "a\\u{200b}b"),
    ];
    for (text, want) in cases {
        assert_eq!(visible(text), want, "text {text:?}");
    }
}

#[test]
fn a_card_renders_every_field() {
    let mut out = Vec::new();
    render_card(
        &mut out,
        &bash_card("touch x", Risk::Medium, true),
        80,
        false,
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "\nPermission needed: Bash\n  layer     builtin\n  risk      medium\n  command   touch x\n  reason    the command is not read-only\n\n"
    );

    let card = Card {
        tool: "acme_deploy".into(),
        title: "Deploy the site".into(),
        layer: "minitool",
        owner: Some("acme".into()),
        risk: Risk::High,
        summary: r#"{"env":"prod"}"#.into(),
        reason: "mini tool tools always ask".into(),
        session_allow_offered: false,
        session_scope: "every acme_deploy call".into(),
        sandbox: None,
        unsandboxed_offered: false,
        change: None,
    };
    let mut out = Vec::new();
    render_card(&mut out, &card, 80, false).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "\nPermission needed: acme_deploy — Deploy the site\n  layer     minitool\n  owner     acme\n  risk      HIGH\n  arguments {\"env\":\"prod\"}\n  reason    mini tool tools always ask\n\n"
    );
}

#[test]
fn the_unconfined_card_says_what_and_why_and_escapes_what_the_package_wrote() {
    use crate::minitool::confine::{Declared, Filesystem};
    let request = Unconfined {
        id: "weather".into(),
        display_name: "Weather\u{1b}[2J".into(),
        declared: Declared {
            filesystem: Filesystem::Read,
            network: true,
            shell: false,
        },
        why: "this kernel has no Landlock (not built in, or disabled at boot)".into(),
    };
    let mut out = Vec::new();
    render_unconfined(&mut out, &request, 100, false).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "\nRun mini tool weather (Weather\\u{1b}[2J) without confinement?\n\
         \x20 declares  filesystem read, network true, shell false\n\
         \x20 why       finch cannot hold it to that here: this kernel has no Landlock (not built in, or\n\
         \x20           disabled at boot)\n\
         \x20 risk      HIGH: its code could read, change and send anything your user can, whatever it declares\n\
         \x20 recorded  Allow is kept; `finch sandbox revoke weather unconfined` takes it back\n\n"
    );
    // y allows, n and Esc deny; Enter alone answers Deny (the cursor starts there).
    let items = unconfined_items("weather");
    let pick = |key: Key| {
        let mut menu = Menu::new(&items, false, None);
        menu.cursor = 1;
        menu.step(key)
    };
    assert_eq!(pick(Key::Char('y')), Outcome::Chosen(vec![0]));
    assert_eq!(pick(Key::Char('1')), Outcome::Chosen(vec![0]));
    assert_eq!(pick(Key::Char('n')), Outcome::Chosen(vec![1]));
    assert_eq!(pick(Key::Enter), Outcome::Chosen(vec![1]));
    assert_eq!(pick(Key::Cancel), Outcome::Cancel);
    assert_eq!(pick(Key::Char('s')), Outcome::Ignore);
}

/// A long command says how long it is; one longer than a page shows a page at a time, and
/// the pages together hold every character of it, in order (issue 28: never cut).
#[test]
fn a_long_command_is_paged_never_cut() {
    let command: String = (0..400).map(|i| format!("w{i} ")).collect::<String>() + "TAIL";
    let card = bash_card(&command, Risk::Medium, true);
    let pages = summary_pages(&card, 60);
    assert!(pages > 1, "{pages}");
    let mut shown = String::new();
    for page in 0..pages {
        let mut out = Vec::new();
        render_card_page(&mut out, &card, 60, false, page).unwrap();
        let text = String::from_utf8(out).unwrap();
        let length = format!("  length    {} characters", command.chars().count());
        assert!(text.contains(&length), "{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(&format!("page {} of {pages}", page + 1)),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.starts_with("  command "))
            .unwrap();
        for line in lines[start..]
            .iter()
            .take_while(|l| !l.starts_with("  reason"))
        {
            assert!(line.chars().count() < 60, "{line:?}");
            shown.push_str(line[FIELD_INDENT..].trim_end());
            shown.push(' ');
        }
    }
    assert_eq!(shown.trim_end(), command);
    // A short command: no length line, no pages.
    let mut out = Vec::new();
    render_card_page(&mut out, &bash_card("ls", Risk::Low, true), 60, false, 0).unwrap();
    assert!(!String::from_utf8(out).unwrap().contains("length"));
}

#[test]
fn high_risk_is_a_word_not_only_a_colour() {
    let mut out = Vec::new();
    render_card(
        &mut out,
        &bash_card("rm -rf x", Risk::High, false),
        80,
        true,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("HIGH"), "{text}");
    assert!(text.contains("\x1b["), "colour was asked for: {text:?}");
}

#[test]
fn summary_labels_follow_the_tool() {
    for (tool, label) in [
        ("Bash", "command"),
        ("Read", "path"),
        ("Write", "path"),
        ("Edit", "path"),
        ("Grep", "pattern"),
        ("WebFetch", "url"),
        ("MiniTool", "arguments"),
    ] {
        assert_eq!(summary_label(tool), label, "{tool}");
    }
}

#[test]
fn the_card_menu_shows_numbers_letters_and_the_cursor() {
    let (choices, menu) = card_menu(true);
    let items = card_items(&choices, &bash_card("touch x", Risk::Medium, true));
    let mut out = Vec::new();
    render_menu(&mut out, &items, &menu, 80, false).unwrap();
    render_help(
        &mut out,
        &card_help(&choices, Duration::from_secs(300)),
        80,
        false,
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "› 1) Allow once                   [y]\n  2) Allow for this session       [s] — this exact command only\n  3) Deny                         [n]\n  4) Deny and tell the model why  [r]\nPress 1-4 or y/s/n/r, or ↑↓ Enter. Esc denies. Denied after 5m."
    );
}

#[test]
fn a_multi_select_question_shows_check_boxes() {
    let question = Question {
        question: "Which files?\nPick any.".into(),
        header: Some("Files".into()),
        options: vec![
            Choice {
                label: "a.txt".into(),
                description: Some("the first".into()),
            },
            Choice {
                label: "b.txt".into(),
                description: None,
            },
        ],
        multi_select: true,
    };
    let items = vec![
        Item {
            label: "a.txt".into(),
            detail: Some("the first".into()),
            letter: None,
            number: Some(1),
        },
        Item {
            label: "b.txt".into(),
            detail: None,
            letter: None,
            number: Some(2),
        },
        Item {
            label: "Other…".into(),
            detail: Some("type your own answer".into()),
            letter: Some('o'),
            number: Some(3),
        },
    ];
    let mut menu = Menu::new(&items, true, Some(2));
    menu.step(Key::Char('2'));
    let mut out = Vec::new();
    render_question(&mut out, &question, 80, false).unwrap();
    render_menu(&mut out, &items, &menu, 80, false).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "\nQuestion: Files\n  Which files?\n  Pick any.\n\n  1) [ ] a.txt — the first\n› 2) [x] b.txt\n  3) Other…  [o] — type your own answer\n"
    );
}

#[test]
fn menu_rows_fit_the_width() {
    let items = vec![Item {
        label: "x".repeat(200),
        detail: Some("y".repeat(50)),
        letter: None,
        number: Some(1),
    }];
    let menu = Menu::new(&items, false, None);
    let rows = menu_lines(&items, &menu, 40);
    assert!(
        rows[0].1.ends_with('…'),
        "a label too long is cut: {rows:?}"
    );
    // The description goes on under the label, whole.
    let detail: String = rows[1..].iter().map(|(_, r)| r.trim()).collect();
    assert_eq!(detail, format!("—{}", "y".repeat(50)));
    for (_, row) in &rows {
        assert!(display_width(row) <= 39, "{row:?}");
    }
}

/// At 60 columns no line of a card is wider than the terminal, no word is broken across
/// lines, and the footer is all there.
#[test]
fn a_card_fits_a_narrow_terminal() {
    let card = Card {
        tool: "mcp__github__create_issue".into(),
        title: "Create an issue in a GitHub repository".into(),
        layer: "mcp",
        owner: Some("github".into()),
        risk: Risk::Medium,
        summary: r#"{"owner":"acme","repo":"site","title":"The deploy step fails on Fridays when the cache is cold"}"#.into(),
        reason: "MCP tools ask in ask mode: no allow rule names mcp__github__create_issue".into(),
        session_allow_offered: true,
        session_scope: "every mcp__github__create_issue call".into(),
        sandbox: None,
        unsandboxed_offered: false,
        change: None,
    };
    let choices = CardChoice::offered(true, false);
    let items = card_items(&choices, &card);
    let menu = Menu::new(&items, false, None);
    let help = card_help(&choices, Duration::from_secs(300));
    let mut out = Vec::new();
    render_card(&mut out, &card, 60, false).unwrap();
    render_menu(&mut out, &items, &menu, 60, false).unwrap();
    render_help(&mut out, &help, 60, false).unwrap();
    let text = String::from_utf8(out).unwrap();
    for line in text.lines() {
        assert!(display_width(line) < 60, "{line:?} in\n{text}");
    }
    let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert!(
        words(&text).windows(2).any(|w| w == ["cache", "is"]),
        "words stay whole:\n{text}"
    );
    assert!(
        text.contains("every mcp__github__create_issue call"),
        "{text}"
    );
    assert!(
        words(&text).ends_with(&words(&help)),
        "the whole footer:\n{text}"
    );
    assert_eq!(
        help_lines(&help, 60).len() + menu_lines(&items, &menu, 60).len(),
        text.lines().count() - text.lines().position(|l| l.contains("1)")).unwrap(),
        "the redraw moves up as many rows as were drawn:\n{text}"
    );
}

#[test]
fn a_write_shows_its_size_and_first_lines_and_counts_the_rest() {
    let content: String = (1..=15).map(|i| format!("line {i}\n")).collect();
    let change = Change::Write {
        content,
        replaces: None,
    };
    let lines = change_lines(&change, 60, false);
    assert_eq!(lines[0], "  content   111 bytes, 15 lines; a new file");
    assert_eq!(lines[1], "  line 1");
    assert_eq!(lines[12], "  line 12");
    assert_eq!(lines[13], "  … 3 more lines not shown");
    assert_eq!(lines.len(), 14);
    let change = Change::Write {
        content: format!("{}\tend\x1b[2J", "x".repeat(60)),
        replaces: Some(1),
    };
    let lines = change_lines(&change, 60, false);
    assert_eq!(
        lines[0],
        "  content   68 bytes, 1 line; replaces a file of 1 byte"
    );
    assert_eq!(
        lines[1],
        format!("  {}…", "x".repeat(57)),
        "cut to the card"
    );
    assert!(lines.iter().all(|l| !l.contains('\x1b')), "{lines:?}");
}

#[test]
fn an_edit_shows_a_coloured_diff_within_the_card() {
    let change = Change::Edit {
        before: "fn main() {\n    old();\n}\n".into(),
        after: "fn main() {\n    new();\n}\n".into(),
    };
    assert_eq!(
        change_lines(&change, 60, false),
        [
            "  change    +1 −1 lines",
            "  @@ -1,3 +1,3 @@",
            "   fn main() {",
            "  -    old();",
            "  +    new();",
            "   }",
        ]
    );
    let coloured = change_lines(&change, 60, true);
    assert!(coloured[3].contains("\x1b[31m-    old();"), "{coloured:?}");
    assert!(coloured[4].contains("\x1b[32m+    new();"), "{coloured:?}");
    // A long line is cut to the card's width before it is coloured.
    let change = Change::Edit {
        before: String::new(),
        after: format!("{}\n", "y".repeat(100)),
    };
    let lines = change_lines(&change, 30, false);
    assert_eq!(lines[2], format!("  +{}…", "y".repeat(26)));
    assert!(lines.iter().all(|l| display_width(l) <= 30), "{lines:?}");
}

#[test]
fn numbers_close_up_and_the_sandbox_choice_has_only_its_letter() {
    use CardChoice::*;
    let choices = CardChoice::offered(false, false);
    assert_eq!(
        card_help(&choices, Duration::from_secs(60)),
        "Press 1-3 or y/n/r, or ↑↓ Enter. Esc denies. Denied after 1m."
    );
    let choices = CardChoice::offered(false, true);
    assert_eq!(
        card_numbers(&choices),
        [Some(1), Some(2), Some(3), None],
        "{choices:?}"
    );
    assert_eq!(choices, [AllowOnce, Deny, DenyWithReason, AllowUnsandboxed]);
    assert_eq!(
        card_help(&choices, Duration::from_secs(60)),
        "Press 1-3 or y/n/r/u, or ↑↓ Enter. Esc denies. Denied after 1m."
    );
    // Where "Deny" was 3 before the numbers closed up, 3 still denies (and asks why);
    // no number allows what a number denied on another card.
    let with_session = card_numbers(&CardChoice::offered(true, true));
    assert_eq!(with_session, [Some(1), Some(2), Some(3), Some(4), None]);
}

#[test]
fn outcomes_read_as_words() {
    let cases = [
        (CardAnswer::AllowOnce, Some("✓ Allowed once")),
        (
            CardAnswer::AllowForSession,
            Some("✓ Allowed for this session"),
        ),
        (CardAnswer::Deny, Some("✗ Denied")),
        (
            CardAnswer::DenyWithReason("wrong dir".into()),
            Some("✗ Denied; the model is told: wrong dir"),
        ),
        (CardAnswer::TimedOut, Some("timed out — denied")),
        (CardAnswer::Unavailable, None),
    ];
    for (answer, want) in cases {
        assert_eq!(card_outcome(&answer, false).as_deref(), want, "{answer:?}");
    }
    assert_eq!(
        question_outcome(&QuestionAnswer::Chosen(vec!["a".into(), "b".into()]), false).as_deref(),
        Some("✓ a, b")
    );
}

#[test]
fn durations_read_well() {
    for (d, want) in [
        (Duration::from_millis(500), "500ms"),
        (Duration::from_secs(1), "1s"),
        (Duration::from_secs(90), "1m30s"),
        (Duration::from_secs(300), "5m"),
        (Duration::from_secs(7200), "2h"),
    ] {
        assert_eq!(human(d), want);
    }
}

#[test]
fn a_file_that_is_not_a_terminal_is_refused() {
    let file = tempfile::tempfile().unwrap();
    assert!(TtyPrompter::on(file, Duration::from_secs(1), false).is_none());
}

#[test]
fn a_huge_timeout_still_has_a_deadline() {
    let deadline = deadline_after(Duration::MAX);
    assert!(deadline > Instant::now());
}

/// The prompter on a real pseudo-terminal: the test plays the person at the keyboard.
#[cfg(target_os = "linux")]
mod on_a_pty {
    use std::ffi::CStr;
    use std::fs::{File, OpenOptions};
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::fs::OpenOptionsExt;
    use std::time::{Duration, Instant};

    use super::*;

    struct Pty {
        master: File,
        slave: File,
    }

    fn pty() -> Pty {
        // SAFETY: plain libc calls; the descriptor is owned by the File from here on.
        let fd = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC) };
        assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        let master = unsafe { File::from_raw_fd(fd) };
        let mut name = [0 as libc::c_char; 128];
        unsafe {
            assert_eq!(libc::grantpt(fd), 0);
            assert_eq!(libc::unlockpt(fd), 0);
            assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
        }
        let path = unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_str()
            .unwrap()
            .to_string();
        let slave = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(path)
            .unwrap();
        Pty { master, slave }
    }

    type Mode = (
        libc::tcflag_t,
        libc::tcflag_t,
        libc::tcflag_t,
        Vec<libc::cc_t>,
    );

    fn mode(tty: &File) -> Mode {
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::tcgetattr(tty.as_raw_fd(), &mut t) }, 0);
        (t.c_iflag, t.c_oflag, t.c_lflag, t.c_cc.to_vec())
    }

    /// Reads the master until `needle` has appeared after `from`; panics after 10 s.
    fn read_until(master: &File, seen: &mut String, from: usize, needle: &str) -> usize {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(at) = seen[from..].find(needle) {
                return from + at + needle.len();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "never saw {needle:?}; saw:\n{seen}");
            if read_some(master, left) == 0 {
                continue;
            }
            let mut buf = [0u8; 4096];
            let n = (&*master).read(&mut buf).unwrap();
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }

    fn read_some(master: &File, wait: Duration) -> i32 {
        let mut fd = libc::pollfd {
            fd: master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
        unsafe { libc::poll(&mut fd, 1, ms) }
    }

    /// Runs `ask` on a prompter on a fresh pty; for each `(wait_for, keys)` waits for the
    /// text, then types the keys. Returns the answer, everything shown, and whether the
    /// terminal mode came back as it was.
    fn drive<T: Send>(
        timeout: Duration,
        type_ahead: &[u8],
        script: &[(&str, &[u8])],
        ask: impl FnOnce(&mut TtyPrompter) -> T + Send,
    ) -> (T, String, bool) {
        let pty = pty();
        let before = mode(&pty.slave);
        let mut prompter = TtyPrompter::on(pty.slave.try_clone().unwrap(), timeout, false).unwrap();
        (&pty.master).write_all(type_ahead).unwrap();
        let mut seen = String::new();
        let answer = std::thread::scope(|s| {
            let asking = s.spawn(|| ask(&mut prompter));
            let mut at = 0;
            for (wait_for, keys) in script {
                at = read_until(&pty.master, &mut seen, at, wait_for);
                (&pty.master).write_all(keys).unwrap();
            }
            asking.join().unwrap()
        });
        while read_some(&pty.master, Duration::from_millis(50)) > 0 {
            let mut buf = [0u8; 4096];
            let n = (&pty.master).read(&mut buf).unwrap();
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        let restored = mode(&pty.slave) == before;
        (answer, seen, restored)
    }

    const HELP_END: &str = "Denied after 10s.";

    fn card(session: bool, script: &[(&str, &[u8])]) -> (CardAnswer, String, bool) {
        let card = bash_card("touch x", Risk::Medium, session);
        drive(Duration::from_secs(10), b"", script, |p| p.card(&card))
    }

    #[test]
    fn keys_answer_the_card() {
        let cases: &[(bool, &[u8], CardAnswer)] = &[
            (true, b"1", CardAnswer::AllowOnce),
            (true, b"y", CardAnswer::AllowOnce),
            (true, b"2", CardAnswer::AllowForSession),
            (true, b"\x1b[B\r", CardAnswer::AllowForSession),
            (true, b"n", CardAnswer::Deny),
            (false, b"3", CardAnswer::Deny),
            (false, b"2n", CardAnswer::Deny),
            (true, b"\x03", CardAnswer::Deny),
            (true, b"\x04", CardAnswer::Deny),
            (true, b"\x1b", CardAnswer::Deny),
        ];
        for (session, keys, want) in cases {
            let (answer, seen, restored) = card(*session, &[(HELP_END, keys)]);
            assert_eq!(&answer, want, "keys {keys:?}; screen:\n{seen}");
            assert!(restored, "terminal mode not restored after {keys:?}");
            assert_eq!(
                seen.contains("2) Allow for this session"),
                *session,
                "{seen}"
            );
        }
    }

    #[test]
    fn deny_with_a_reason_reads_a_line() {
        let (answer, seen, restored) = card(
            true,
            &[
                (HELP_END, b"r"),
                ("Tell the model why", "wrong dirx\x7f, use ~/ü\r".as_bytes()),
            ],
        );
        assert_eq!(
            answer,
            CardAnswer::DenyWithReason("wrong dir, use ~/ü".into()),
            "{seen}"
        );
        assert!(seen.contains("Denied; the model is told: wrong dir, use ~/ü"));
        assert!(restored);
    }

    #[test]
    fn an_empty_or_abandoned_reason_is_a_plain_deny() {
        for keys in [&b"\r"[..], b"\x1b", b"\x03"] {
            let (answer, seen, restored) =
                card(true, &[(HELP_END, b"4"), ("Tell the model why", keys)]);
            assert_eq!(answer, CardAnswer::Deny, "{keys:?}: {seen}");
            assert!(restored);
        }
    }

    #[test]
    fn an_unanswered_card_times_out_denied() {
        let card = bash_card("touch x", Risk::Medium, true);
        let started = Instant::now();
        let (answer, seen, restored) = drive(
            Duration::from_millis(300),
            b"",
            &[("Denied after 300ms.", b"")],
            |p| p.card(&card),
        );
        assert_eq!(answer, CardAnswer::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(seen.contains("timed out — denied"), "{seen}");
        assert!(restored);
    }

    #[test]
    fn an_unanswered_reason_times_out_to_a_plain_deny() {
        let card = bash_card("touch x", Risk::Medium, true);
        let (answer, seen, restored) = drive(
            Duration::from_millis(500),
            b"",
            &[
                ("Denied after 500ms.", b"r"),
                ("Tell the model why", b"half a rea"),
            ],
            |p| p.card(&card),
        );
        assert_eq!(answer, CardAnswer::Deny, "{seen}");
        assert!(seen.contains("no reason given in time"), "{seen}");
        assert!(restored);
    }

    #[test]
    fn keys_typed_before_the_card_do_not_answer_it() {
        let card = bash_card("touch x", Risk::Medium, true);
        let (answer, seen, _) = drive(Duration::from_secs(10), b"y", &[(HELP_END, b"n")], |p| {
            p.card(&card)
        });
        assert_eq!(answer, CardAnswer::Deny, "{seen}");
    }

    #[test]
    fn a_hung_up_terminal_denies() {
        let pty = pty();
        let mut prompter = TtyPrompter::on(
            pty.slave.try_clone().unwrap(),
            Duration::from_secs(10),
            false,
        )
        .unwrap();
        let card = bash_card("touch x", Risk::Medium, true);
        let answer = std::thread::scope(|s| {
            let asking = s.spawn(|| prompter.card(&card));
            let mut seen = String::new();
            read_until(&pty.master, &mut seen, 0, HELP_END);
            drop(pty.master);
            asking.join().unwrap()
        });
        assert_eq!(answer, CardAnswer::Deny);
    }

    fn question(multi: bool) -> Question {
        Question {
            question: "Which colour?".into(),
            header: None,
            options: ["red", "green", "blue"]
                .into_iter()
                .map(|l| Choice {
                    label: l.into(),
                    description: None,
                })
                .collect(),
            multi_select: multi,
        }
    }

    #[test]
    fn keys_answer_a_question() {
        let chosen = |labels: &[&str]| {
            QuestionAnswer::Chosen(labels.iter().map(|l| l.to_string()).collect())
        };
        type Script = Vec<(&'static str, &'static [u8])>;
        let cases: Vec<(bool, Script, QuestionAnswer)> = vec![
            (false, vec![("Unanswered after", b"2")], chosen(&["green"])),
            (
                false,
                vec![("Unanswered after", b"\x1b[B\x1b[B\r")],
                chosen(&["blue"]),
            ),
            (
                true,
                vec![("Unanswered after", b"13\r")],
                chosen(&["red", "blue"]),
            ),
            (
                true,
                vec![("Unanswered after", b" \x1b[B \r")],
                chosen(&["red", "green"]),
            ),
            (
                false,
                vec![("Unanswered after", b"o"), ("Your answer", b"purple\r")],
                QuestionAnswer::Other("purple".into()),
            ),
            (
                true,
                vec![
                    ("Unanswered after", b"4"),
                    ("Your answer", b"\x1b"),
                    ("Unanswered after", b"1\r"),
                ],
                chosen(&["red"]),
            ),
            (
                false,
                vec![("Unanswered after", b"\x03")],
                QuestionAnswer::Unavailable,
            ),
        ];
        for (multi, script, want) in cases {
            let q = question(multi);
            let (answer, seen, restored) =
                drive(Duration::from_secs(10), b"", &script, |p| p.question(&q));
            assert_eq!(answer, want, "{script:?}; screen:\n{seen}");
            assert!(restored);
        }
    }

    #[test]
    fn an_unanswered_question_times_out() {
        let q = question(false);
        let (answer, seen, restored) = drive(
            Duration::from_millis(300),
            b"",
            &[("Unanswered after 300ms.", b"")],
            |p| p.question(&q),
        );
        assert_eq!(answer, QuestionAnswer::TimedOut);
        assert!(seen.contains("timed out — no answer"), "{seen}");
        assert!(restored);
    }
}
