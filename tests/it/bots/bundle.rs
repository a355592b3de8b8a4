//! An ES module bundle made for the app reads `__dirname` and `__filename` (the public
//! finch-feishu-bot does, to find what it ships beside its bundle): finch gives them, naming
//! the entry, as globals of the mini tool's own process.

use serde_json::json;

use super::{FAST, call, install, result};
use crate::common::TestContext;
use crate::common::fixtures::MiniTool;

#[test]
fn an_es_module_bundle_reads_dirname_and_filename_of_its_entry() {
    let ctx = TestContext::new();
    ctx.write_config(FAST);
    let bundle = MiniTool::new("feishu-like", "1.0.0")
        .entry_source(
            r#"import fs from "node:fs";
import path from "node:path";
// As a bundle for the app reads them: bare names in an ES module.
const here = __dirname;
const schema = fs.readFileSync(path.join(here, "schema.proto"), "utf8");
export function activate(ctx) {
  ctx.tools.register({
    name: "where",
    description: "Where its bundle is",
    async execute() {
      return { dirname: here, filename: __filename, schema: schema.trim() };
    },
  });
}
"#,
        )
        .file("dist/schema.proto", "message Event {}\n");
    install(&ctx, &bundle);
    let got = result(&call(&ctx, "feishu-like_where", json!({}), &[]));
    let dist = ctx.personal_tier().join("feishu-like/dist");
    assert_eq!(
        got,
        json!({
            "dirname": dist.display().to_string(),
            "filename": dist.join("index.js").display().to_string(),
            "schema": "message Event {}",
        })
    );
}
