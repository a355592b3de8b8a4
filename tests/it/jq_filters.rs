//! Issue 31, item 3: `--jq`'s regex, `@base64`, `@html`, `@uri` and date filters through the
//! real binary (`src/ui/jq/natives.rs`; before, each was an "undefined filter" usage error),
//! over `space list --json` of a fixed spaces.json, in Asia/Kolkata (+05:30, no summer time).

use crate::common::TestContext;

fn spaces() -> TestContext {
    let ctx = TestContext::new();
    std::fs::create_dir_all(&ctx.runtime).unwrap();
    let spaces = serde_json::json!({"spaces": [
        {"id": "sp-0a1b2c3d", "name": "Work Notes 2026", "directory": "/srv/notes",
         "createdAt": "2026-03-07T02:30:00.000Z"},
        {"id": "sp-4e5f6a7b", "name": "Travel <plans> & visas",
         "createdAt": "2026-03-08T10:00:00.500Z"}
    ]});
    std::fs::write(ctx.runtime.join("spaces.json"), spaces.to_string()).unwrap();
    ctx
}

/// `finch space list --jq EXPR`: its exit code, stdout and stderr.
fn jq(ctx: &TestContext, expr: &str) -> (i32, String, String) {
    let out = ctx
        .cmd()
        .env("TZ", "Asia/Kolkata")
        .args(["space", "list", "--jq", expr])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Each `(expression, what it prints)` succeeds with exactly that output.
fn prints(ctx: &TestContext, cases: &[(&str, &str)]) {
    for (expr, expected) in cases {
        let (code, out, err) = jq(ctx, expr);
        assert_eq!((code, out.as_str()), (0, *expected), "{expr}\n{err}");
    }
}

#[test]
fn regex_filters() {
    let ctx = spaces();
    prints(
        &ctx,
        &[
            (r#".[].name | test("notes"; "i")"#, "true\nfalse\n"),
            (r#".[].name | test("notes")"#, "false\nfalse\n"),
            (
                r#".[0].name | match("(?<word>[A-Z]\\w+) (\\w+)(x)?")"#,
                concat!(
                    r#"{"offset":0,"length":10,"string":"Work Notes","captures":[{"offset":0,"length":4,"string":"Work","name":"word"},{"offset":5,"length":5,"string":"Notes","name":null},{"offset":-1,"length":0,"string":null,"name":null}]}"#,
                    "\n"
                ),
            ),
            // Offsets in characters, not bytes.
            (
                r#""日本語のメモ" | match("のメ") | [.offset, .length]"#,
                "[3,2]\n",
            ),
            (r#".[0].name | [match("o"; "g").offset]"#, "[1,6]\n"),
            (
                r#".[] | .name | capture("(?<first>\\w+) (?<second>\\w+)")"#,
                "{\"first\":\"Work\",\"second\":\"Notes\"}\n",
            ),
            (
                r#".[0].name | [scan("\\w+")]"#,
                "[\"Work\",\"Notes\",\"2026\"]\n",
            ),
            (
                r#".[0].name | split(" +"; null)"#,
                "[\"Work\",\"Notes\",\"2026\"]\n",
            ),
            (r#".[0].name | [splits(" ")] | length"#, "3\n"),
            (
                r#".[0].name | sub("(?<n>\\d+)"; "year \(.n)")"#,
                "Work Notes year 2026\n",
            ),
            (
                r#".[].name | gsub("[aeiou]"; "_")"#,
                "W_rk N_t_s 2026\nTr_v_l <pl_ns> & v_s_s\n",
            ),
        ],
    );
}

#[test]
fn base64_html_and_uri_filters() {
    let ctx = spaces();
    prints(
        &ctx,
        &[
            (".[0].name | @base64", "V29yayBOb3RlcyAyMDI2\n"),
            (".[0].name | @base64 | @base64d", "Work Notes 2026\n"),
            // Without its padding too.
            (r#""V29yaw" | @base64d"#, "Work\n"),
            (".[1].name | @html", "Travel &lt;plans&gt; &amp; visas\n"),
            (".[1].name | @html | @htmld", "Travel <plans> & visas\n"),
            (".[1].name | @uri", "Travel%20%3Cplans%3E%20%26%20visas\n"),
            (".[1].name | @uri | @urid", "Travel <plans> & visas\n"),
            (r#"@base64 "id: \(.[0].id)""#, "id: c3AtMGExYjJjM2Q=\n"),
        ],
    );
}

#[test]
fn date_filters() {
    let ctx = spaces();
    prints(
        &ctx,
        &[
            // finch's times have milliseconds: `fromdate` reads them (jq's does not).
            (".[].createdAt | fromdate", "1772850600\n1772964000.5\n"),
            (
                ".[0].createdAt | fromdate | todate",
                "2026-03-07T02:30:00Z\n",
            ),
            (
                ".[0].createdAt | fromdate | gmtime",
                "[2026,2,7,2,30,0,6,65]\n",
            ),
            (
                ".[0].createdAt | fromdate | gmtime | mktime",
                "1772850600\n",
            ),
            (
                r#".[0].createdAt | fromdate | strftime("%A %d %B %Y %H:%M")"#,
                "Saturday 07 March 2026 02:30\n",
            ),
            (
                ".[0].createdAt | fromdate | localtime",
                "[2026,2,7,8,0,0,6,65]\n",
            ),
            (
                r#".[0].createdAt | fromdate | strflocaltime("%H:%M %z")"#,
                "08:00 +0530\n",
            ),
            (
                r#""07/03/2026 02:30" | strptime("%d/%m/%Y %H:%M")"#,
                "[2026,2,7,2,30,0,6,65]\n",
            ),
            (
                r#""07/03/2026 08:00 +0530" | strptime("%d/%m/%Y %H:%M %z") | mktime"#,
                "1772850600\n",
            ),
            // The clock: seconds since 1970, whatever the machine's date.
            ("now | type, (now > 0)", "number\ntrue\n"),
        ],
    );
}

/// A filter that fails on its input exits 1 and says why on stderr, stdout empty.
#[test]
fn bad_regexes_dates_and_data_are_errors_of_the_filter() {
    let ctx = spaces();
    for (expr, message) in [
        (
            r#".[0].name | test("(")"#,
            "Error: --jq: invalid regex \"(\": unclosed group\n",
        ),
        (
            r#".[0].name | test("a"; "q")"#,
            "Error: --jq: q is not a regex flag (g, n, i, x, m, s, p or l)\n",
        ),
        (
            r#".[0].name | fromdate"#,
            "Error: --jq: \"Work Notes 2026\" is not an ISO 8601 time with an offset (2026-03-07T02:30:00Z)",
        ),
        (
            r#""%%%" | @base64d"#,
            "Error: --jq: \"%%%\" is not valid base64 data",
        ),
        (
            "[1,2] | mktime",
            "Error: --jq: [1,2] is not a broken-down time ([year, month 0-11, day, hours, minutes, seconds, …])\n",
        ),
        (
            r#""x" | strptime("%Y")"#,
            "Error: --jq: \"x\" does not match \"%Y\"",
        ),
    ] {
        let (code, out, err) = jq(&ctx, expr);
        assert_eq!((code, out.as_str()), (1, ""), "{expr}\n{err}");
        assert!(err.starts_with(message), "{expr}: {err}");
    }
}
