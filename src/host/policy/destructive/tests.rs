use super::*;
use crate::host::policy::bash::classify;

/// The classifier's answer for scripts, as the classifier hands it to the table.
fn scripts(script: &str) -> bool {
    classify(script).destructive
}

/// One case per row of `TABLE`, in its order, through the whole classifier: a command the
/// row makes HIGH and a neighbour it must not.
#[test]
fn every_row_is_high_and_its_neighbour_is_not() {
    let cases: &[(&str, &str)] = &[
        ("rm victim/*", "rm notes.txt"),
        ("unlink f", "link a b"),
        ("mv -f a b", "mv a b"),
        ("cp /dev/null f", "cp a b"),
        ("ln -sf /dev/null f", "ln -s a b"),
        ("sed -i d f", "sed -i s/a/b/ f"),
        ("find . -name x -delete", "find . -name x"),
        (
            "python3 -c \"import shutil; shutil.rmtree('victim')\"",
            "python3 -c 'print(1)'",
        ),
        (
            "git -c alias.x='!rm -rf victim' x",
            "git -c alias.x='!echo hi' x",
        ),
        ("git checkout HEAD f", "git checkout main"),
        ("git reset --keep HEAD~1", "git reset --soft HEAD~1"),
        (
            "git update-ref -d refs/heads/main",
            "git update-ref refs/heads/x HEAD",
        ),
        ("git reflog expire --expire=now --all", "git reflog show"),
        ("git reflog delete HEAD@{1}", "git reflog"),
        ("git gc --prune=now", "git gc"),
        ("git prune", "git pull"),
        ("git commit --amend -m x", "git commit -m x"),
        ("git rebase -i HEAD~3", "git fetch"),
        ("git filter-branch --tree-filter x HEAD", "git branch"),
        ("git filter-repo --path x", "git remote -v"),
        ("git tag -d v1", "git tag v1"),
        ("git symbolic-ref -d HEAD", "git symbolic-ref HEAD"),
        ("crontab -r", "crontab -l"),
        ("kill -9 -1", "kill -9 1234"),
        ("killall5 -9", "killall x"),
        ("shutdown -h now", "uptime"),
        ("systemctl reboot", "systemctl status x"),
        ("init 0", "init --version"),
        ("docker system prune -af", "docker system df"),
        ("docker volume rm data", "docker volume ls"),
        ("kubectl delete pod x", "kubectl get pods"),
        ("kubectl drain node-1", "kubectl describe node-1"),
        ("helm uninstall web", "helm list"),
        ("terraform destroy -auto-approve", "terraform plan"),
        ("terraform apply -destroy", "terraform apply"),
        ("terraform state rm aws_s3_bucket.b", "terraform state list"),
        ("pulumi destroy --yes", "pulumi preview"),
        ("aws s3 rm s3://b --recursive", "aws s3 ls s3://b"),
        ("aws s3 rb s3://b --force", "aws s3 mb s3://b"),
        ("aws s3 sync . s3://b --delete", "aws s3 sync . s3://b"),
        (
            "aws ec2 terminate-instances --instance-ids i-1",
            "aws ec2 describe-instances",
        ),
        ("gsutil rm gs://b/x", "gsutil ls gs://b"),
        (
            "gcloud compute instances delete vm",
            "gcloud compute instances list",
        ),
        ("psql -c 'DROP DATABASE prod'", "psql -c 'SELECT 1'"),
        ("dropdb prod", "createdb prod"),
        ("redis-cli FLUSHALL", "redis-cli GET k"),
    ];
    assert_eq!(cases.len(), TABLE.len(), "one case per row");
    let mut failures = Vec::new();
    for ((high, not), row) in cases.iter().zip(TABLE) {
        let c = classify(high);
        if !c.destructive {
            failures.push(format!("{high:?} is not destructive ({})", c.reason));
        }
        let words: Vec<String> = classify(high)
            .segments
            .first()
            .map(|s| s.words.clone())
            .unwrap_or_default();
        if !row.programs.contains(&basename(&words[0])) || !passes(row.test, &words[1..], &scripts)
        {
            failures.push(format!("{high:?} does not match its row ({})", row.why));
        }
        if classify(not).destructive {
            failures.push(format!(
                "{not:?} is destructive ({:?})",
                classify(not).destructive_reason
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The 52 commands of issue 28 that were labelled medium, each HIGH now.
#[test]
fn the_commands_of_the_issue_are_destructive() {
    for command in ISSUE_COMMANDS {
        let c = classify(command);
        assert!(c.destructive, "{command:?}: {}", c.reason);
    }
}

/// Shared with the integration test through `finch policy check`.
pub const ISSUE_COMMANDS: &[&str] = &[
    "rm victim/*",
    "unlink victim/f",
    "find victim -type f -exec rm {} +",
    "find victim -exec rm {} \\;",
    "ls victim | xargs rm",
    "> victim/f",
    ": > victim/f",
    "cp /dev/null victim/f",
    "sed -i d victim/f",
    "sed -i '1,$d' victim/f",
    "ln -sf /dev/null victim/f",
    "mv -f a victim/f",
    "git checkout HEAD victim/f",
    "git reset --keep HEAD~1",
    "git update-ref -d refs/heads/main",
    "git reflog expire --expire=now --all",
    "git gc --prune=now",
    "git commit --amend -m x",
    "git filter-branch --force --index-filter 'git rm --cached -r x' HEAD",
    "busybox rm -rf victim",
    "taskset 1 rm -rf victim",
    "taskset -c 0 rm -rf victim",
    "chrt 0 rm -rf victim",
    "chrt -o 0 rm -rf victim",
    "unshare rm -rf victim",
    "unshare -r rm -rf victim",
    "setpriv --reuid=1000 rm -rf victim",
    "script -c 'rm -rf victim' /dev/null",
    "script -qc 'rm -rf victim'",
    "python3 -c \"import shutil; shutil.rmtree('victim')\"",
    "python3 -c 'import os; os.remove(\"victim/f\")'",
    "python3 -c 'import os; os.system(\"rm -rf victim\")'",
    "python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"victim\"])'",
    "node -e \"require('fs').rmSync('victim', {recursive: true})\"",
    "node -e \"require('child_process').execSync('rm -rf victim')\"",
    "perl -e 'unlink glob \"victim/*\"'",
    "ruby -e 'require \"fileutils\"; FileUtils.rm_rf(\"victim\")'",
    "git -c alias.x='!rm -rf victim' x",
    "git -c core.hooksPath=/tmp/h commit -m x",
    "crontab -r",
    "kill -9 -1",
    "kill -KILL -1",
    "shutdown now",
    "reboot",
    "docker system prune -af",
    "kubectl delete ns prod",
    "terraform destroy -auto-approve",
    "aws s3 rm s3://bucket --recursive",
    "psql -c 'DROP DATABASE prod'",
    "mysql -e 'drop table users'",
    "redis-cli FLUSHALL",
    "redis-cli -h db flushdb",
];

#[test]
fn wrappers_unwrap_to_what_they_run() {
    let w = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        unwrap(&w("taskset -c 0 rm -rf x")),
        vec![Wrapped::Command(w("rm -rf x"))]
    );
    assert!(unwrap(&w("taskset -p 1")).is_empty());
    assert_eq!(
        unwrap(&w("setpriv --reuid=1 -- ls")),
        vec![Wrapped::Command(w("ls"))]
    );
    assert_eq!(
        unwrap(&["script".into(), "-qc".into(), "rm -rf x".into()]),
        vec![Wrapped::Script("rm -rf x".into())]
    );
    assert_eq!(
        unwrap(&["script".into(), "-c".into(), "rm -rf x".into()]),
        vec![Wrapped::Script("rm -rf x".into())]
    );
    assert!(unwrap(&w("ls -la")).is_empty());
}

/// Code inside code is followed a few levels, then counts as destructive: the recursion
/// is bounded whatever the model writes.
#[test]
fn nesting_is_bounded() {
    // Two levels: bash → python → a shell command that deletes.
    let command = r#"python3 -c "import os; os.system('sh -c \"rm -rf victim\"')""#;
    assert!(classify(command).destructive, "{command}");
    NESTING.with(|n| n.set(MAX_NESTING));
    assert!(script_is_destructive("ls", &scripts));
    NESTING.with(|n| n.set(0));
    assert!(!script_is_destructive("ls", &scripts));
}

#[test]
fn redirections_that_empty_a_file() {
    assert!(emptying_redirect(None, ">", "f").is_some());
    assert!(emptying_redirect(Some(":"), ">|", "f").is_some());
    assert!(emptying_redirect(None, ">>", "f").is_none());
    assert!(emptying_redirect(None, ">", "/dev/null").is_none());
    assert!(emptying_redirect(Some("ls"), ">", "out.txt").is_none());
}
