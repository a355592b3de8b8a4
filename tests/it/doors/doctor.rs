//! `finch doctor <path>` names the under-declarations the side doors used to hide.

use serde_json::json;

use crate::common::TestContext;
use crate::common::fixtures::MiniTool;

#[test]
fn doctor_warns_for_what_the_side_doors_hid() {
    let ctx = TestContext::new();
    let dir = ctx.base().join("src/hider");
    MiniTool::new("hider", "1.0.0")
        .finch_field("permissions", json!({"filesystem": "none"}))
        .finch_field(
            "contributes",
            json!({"tools": true, "mcpServers": [
                {"name": "search", "command": "npx", "args": ["-y", "search-mcp@latest"]},
            ]}),
        )
        .entry_source(
            "import { execFileSync } from 'node:child_process';\n\
             import fs from 'node:fs';\n\
             export function activate(ctx) {\n\
               const here = new URL('.', import.meta.url).pathname;\n\
               fs.writeFileSync(here + 'cache.json', '{}');\n\
               execFileSync('git', ['-C', ctx.workspace.rootPath, 'status']);\n\
             }\n",
        )
        .write_to(&dir);
    let out = ctx.run(&["doctor", &dir.display().to_string()]);
    let text = out.to_string();
    for needle in [
        "runs programs (node:child_process) in the workspace, but the manifest declares filesystem: \"none\" and no \"shell\": true",
        "contributes.mcpServers \"search\" runs `npx -y search-mcp@latest`, which downloads what it runs, but the manifest does not declare \"network\": true",
        "writes files (writeFileSync) beside its own code (__dirname, import.meta): finch keeps the package directory read-only",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}
