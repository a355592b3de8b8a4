//! Issue 43, item 7: scripting as gh users write it, through the real binary: `--json FIELDS`
//! (`src/ui/fields.rs`: only the named fields, the list of fields when one matches nothing)
//! and `@tsv`/`@csv` inside `--jq` (`src/ui/jq/natives.rs`). Before, `--json name,layer` was
//! an unexpected argument and `@tsv` an undefined filter, both exit 2.

use crate::common::TestContext;

/// The first three built-ins, name and layer.
const FIRST_THREE: &str = ".[0:3][]";

#[test]
fn json_fields_keep_only_the_named_fields_in_their_order() {
    let ctx = TestContext::new();
    for args in [
        &[
            "tool",
            "list",
            "--source",
            "builtin",
            "--json",
            "layer,name",
            "--jq",
            FIRST_THREE,
        ][..],
        &[
            "tool",
            "list",
            "--source",
            "builtin",
            "--json=layer,name",
            "--jq",
            FIRST_THREE,
        ][..],
        &[
            "--json",
            "layer,name",
            "tool",
            "list",
            "--source",
            "builtin",
            "--jq",
            FIRST_THREE,
        ][..],
    ] {
        let run = ctx.run(args);
        run.success();
        assert_eq!(
            run.stdout(),
            concat!(
                "{\"layer\":\"builtin\",\"name\":\"Read\"}\n",
                "{\"layer\":\"builtin\",\"name\":\"Write\"}\n",
                "{\"layer\":\"builtin\",\"name\":\"Edit\"}\n"
            ),
            "{args:?}"
        );
    }
    // Without --jq: the document, pretty as ever, of those fields only.
    let run = ctx.run(&["tool", "info", "Read", "--json", "name,layer"]);
    run.success();
    insta::assert_snapshot!(run.stdout(), @r#"
    {
      "name": "Read",
      "layer": "builtin"
    }
    "#);
}

#[test]
fn an_unknown_json_field_lists_the_fields_and_prints_no_document() {
    let ctx = TestContext::new();
    let run = ctx.run(&["tool", "list", "--json", "name,nme"]);
    run.failure(2);
    insta::assert_snapshot!(run.stderr(), @r#"
    Error: unknown JSON field "nme"
    hint: the fields of this command's JSON: name, title, description, layer, source, owner, exposure
    "#);
    // The error document is whole, not cut to the fields asked for.
    assert_eq!(run.json()["error"]["code"], "usage");
    let run = ctx.run(&["tool", "list", "--json="]);
    run.failure(2);
    assert_eq!(run.json()["error"]["message"], "--json= names no field");
    // With --jq, stdout has only what the filter prints: nothing here.
    let run = ctx.run(&["tool", "list", "--json", "nme", "--jq", ".[]"]);
    run.failure(2);
    assert_eq!(run.stdout(), "");
    run.stderr_has("Error: unknown JSON field \"nme\"");
}

#[test]
fn a_word_the_command_needs_after_json_stays_the_commands() {
    let ctx = TestContext::new();
    ctx.run(&["memory", "remember", "Tea at 4"]).success();
    // `tea` is the query here, not a field list: search needs one.
    let run = ctx.run(&["memory", "search", "--json", "tea", "--jq", ".[].text"]);
    run.success();
    assert_eq!(run.stdout(), "Tea at 4\n");
}

#[test]
fn tsv_and_csv_rows_inside_jq() {
    let ctx = TestContext::new();
    let run = ctx.run(&[
        "tool",
        "list",
        "--source",
        "builtin",
        "--json",
        "name,layer",
        "--jq",
        ".[0:2][] | [.name, .layer] | @tsv",
    ]);
    run.success();
    assert_eq!(run.stdout(), "Read\tbuiltin\nWrite\tbuiltin\n");
    let run = ctx.run(&[
        "tool",
        "info",
        "Read",
        "--jq",
        r#"[.name, "say \"hi\", twice", 2, null, true] | @csv"#,
    ]);
    run.success();
    assert_eq!(run.stdout(), "\"Read\",\"say \"\"hi\"\", twice\",2,,true\n");
    // A tab or line break inside a field is escaped, so one row stays one line.
    let run = ctx.run(&["tool", "info", "Read", "--jq", r#"["a\tb", "c\nd"] | @tsv"#]);
    run.success();
    assert_eq!(run.stdout(), "a\\tb\tc\\nd\n");
    let run = ctx.run(&["tool", "info", "Read", "--jq", "[.] | @csv"]);
    run.failure(1);
    run.stderr_has("is not valid in a csv row");
}
