//! How a mini tool's process is confined (`minitool::confine` owns the table): what of finch's
//! environment and settings a confined process is given, the kernel's rights for one start,
//! and the agreement a person gives where the kernel cannot confine it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Inner, Instance, lock};

/// What a confined mini tool's process is given of finch's environment and settings.
pub(super) struct ConfineEnv {
    pub(super) vars: Vec<(String, std::ffi::OsString)>,
    /// `[sandbox] env`.
    pub(super) extra_env: Vec<String>,
    /// `[sandbox] read`.
    pub(super) extra_read: Vec<PathBuf>,
    pub(super) home: Option<PathBuf>,
    /// Where an approved Bash call runs, and so an agent a mini tool's session starts
    /// (`sessions`).
    pub(super) agent: crate::sandbox::Confine,
}

impl Inner {
    /// What the kernel lets `inst`'s node reach, and its environment (`minitool::confine`).
    pub(super) fn confine_spec(
        &self,
        inst: &Instance,
        declared: &crate::minitool::confine::Declared,
        node: &Path,
        bootstrap: &Path,
    ) -> crate::minitool::confine::Spawn {
        use crate::minitool::confine;
        let ce = &self.confine_env;
        let session = lock(&self.session).clone();
        let roots: Vec<PathBuf> = session
            .iter()
            .flat_map(|s| std::iter::once(s.cwd.clone()).chain(s.trusted.iter().cloned()))
            .collect();
        let protected = match (&session, declared.workspace()) {
            (Some(s), confine::Filesystem::ReadWrite) => {
                let workspace = crate::host::policy::Workspace {
                    cwd: s.cwd.clone(),
                    project: s.project.clone(),
                    trusted: s.trusted.clone(),
                    home: ce.home.clone(),
                    runtime: Some(self.homes.runtime.clone()),
                };
                roots
                    .iter()
                    .flat_map(|r| crate::host::policy::protected_paths_below(r, &workspace))
                    .collect()
            }
            _ => Vec::new(),
        };
        let var = |name: &str| {
            ce.vars
                .iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| v.clone())
        };
        let at = confine::Whereabouts {
            node,
            package: &inst.dir,
            storage: &inst.storage.dir,
            bootstrap: Some(bootstrap),
            roots,
            protected,
            home: ce.home.clone(),
            path: var("PATH"),
            extra_read: ce.extra_read.clone(),
            extra_ca: var("NODE_EXTRA_CA_CERTS").map(PathBuf::from),
        };
        let declared = &confine::Declared {
            network: inst.reach.network(),
            ..*declared
        };
        let env = confine::environment(
            declared,
            ce.vars.iter().map(|(k, v)| (k.as_str(), v)),
            &ce.extra_env,
        );
        let mut access = confine::access(declared, &at);
        inst.reach.apply(&mut access);
        let proxy = matches!(inst.reach, confine::Reach::Hosts(_)).then(|| {
            Arc::new(confine::proxy_policy(
                &self.homes,
                &inst.id,
                inst.listed_hosts.clone(),
            ))
        });
        confine::Spawn { access, env, proxy }
    }
}

/// a person agrees it starts so (the agreement is recorded by `consent`).
pub(super) fn agree_unconfined(
    inst: &mut Arc<Instance>,
    consent: &dyn crate::minitool::confine::Consent,
) {
    use crate::minitool::confine::{Mode, Unconfined};
    let Mode::Refused { declared, why } = &inst.sandbox else {
        return;
    };
    let request = Unconfined {
        id: inst.id.clone(),
        display_name: inst.display_name.clone(),
        declared: *declared,
        why: why.clone(),
    };
    // Nothing else holds the instance yet (it is being built).
    if let Some(inst) = Arc::get_mut(inst)
        && consent.agree(&request)
    {
        inst.sandbox = Mode::Unconfined {
            declared: request.declared,
            why: request.why,
        };
    }
}
