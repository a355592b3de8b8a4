//! Every refusal names what forbade it: the declaration, the sandbox's own rule, or the
//! package directory that is read-only.

use serde_json::json;

use super::{Doors, text_of};

#[test]
fn each_refusal_names_what_forbade_it() {
    let mut d = Doors::new();
    let dir = d.package("doors", json!({"filesystem": "readwrite"}), json!({}), &[]);
    let dir = dir.display().to_string();
    let attempt = |d: &Doors, what: &str| -> String {
        let record = d
            .call(
                "doors_try",
                json!({ "what": what }),
                &["--minitool", &dir, "--approve", "doors_try"],
            )
            .json();
        assert_eq!(record["isError"], true, "{what} worked: {record}");
        text_of(&record)
    };
    let fetch = attempt(&d, "fetch");
    assert!(
        fetch.contains("blocked: doors declares network: false"),
        "{fetch}"
    );
    let kill = attempt(&d, "kill");
    assert!(
        kill.contains("blocked: doors may signal only the processes it started"),
        "{kill}"
    );
    let renice = attempt(&d, "renice");
    assert!(
        renice.contains("blocked: doors may signal only the processes it started"),
        "{renice}"
    );
    let write = attempt(&d, "writePackage");
    assert!(
        write.contains("blocked: doors's package directory is read-only"),
        "{write}"
    );
    assert!(!write.contains("declares filesystem"), "{write}");
    assert_eq!(d.connections(), 0);
    assert!(d.victim_alive(), "the test's process was signalled");
}
