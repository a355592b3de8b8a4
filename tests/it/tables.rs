//! Tables on a real terminal (`finch memory list` draws a table only there): widths in
//! display columns, ids never cut.

use crate::cards::Pty;
use crate::common::TestContext;

#[test]
fn memory_list_measures_cjk_in_columns_and_keeps_ids_whole() {
    let ctx = TestContext::new();
    let text = "会議は毎週火曜日の午前十時から始まり、議事録は共有フォルダに保存する";
    ctx.run(&["memory", "remember", text]).success();
    ctx.run(&["memory", "remember", "plain ascii entry"])
        .success();
    let pty = Pty::spawn_env(&ctx, &["memory", "list"], &[("COLUMNS", "60")]);
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    let lines: Vec<&str> = shown.lines().map(|l| l.trim_end_matches('\r')).collect();
    assert!(lines[0].starts_with("ID"), "{shown}");
    for line in &lines {
        let columns = unicode_width::UnicodeWidthStr::width(*line);
        assert!(columns <= 60, "{columns} columns: {line:?}\n{shown}");
    }
    let cjk = lines
        .iter()
        .find(|l| l.contains("会議"))
        .expect("the CJK row");
    assert!(cjk.ends_with('…'), "cut to fit, by columns: {cjk:?}");
    // The id column holds what `memory forget` takes, whole.
    let piped = ctx.run(&["memory", "list"]).stdout();
    for id in piped.lines().filter_map(|l| l.split('\t').next()) {
        assert!(
            shown.contains(id),
            "id {id} whole on the terminal:\n{shown}"
        );
    }
}
