//! What the kernel here can enforce, probed once per process: the Landlock ABI, seccomp, and
//! whether a child can get the namespaces every confined tree runs in (user, mount and PID,
//! with its own `/proc`). `finch sandbox status`, `finch doctor --env` and the gateway's "fail
//! closed" rule read this; nothing here confines anything.

use std::sync::OnceLock;

use serde_json::{Value, json};

use super::Profile;

/// The Landlock ABI the profiles need in full: 6 (signal and abstract socket scopes; TCP from
/// 4, `IoctlDev` from 5).
pub const REQUIRED_ABI: i32 = 6;

/// Landlock on this kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LandlockState {
    /// ABI `REQUIRED_ABI` or newer: every right finch asks for is enforced.
    Enforced(i32),
    /// An older ABI: some rights would not be enforced, so finch does not rely on it.
    Partial(i32),
    /// No Landlock (not built in, disabled, or not Linux).
    Unavailable,
}

impl LandlockState {
    pub fn abi(self) -> Option<i32> {
        match self {
            LandlockState::Enforced(abi) | LandlockState::Partial(abi) => Some(abi),
            LandlockState::Unavailable => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LandlockState::Enforced(_) => "enforced",
            LandlockState::Partial(_) => "partial",
            LandlockState::Unavailable => "unavailable",
        }
    }
}

/// Why a tree cannot be confined where its namespaces are missing.
pub const NO_NAMESPACES: &str = "no user namespaces here (and not root): each confined process tree needs its own PID and mount namespace";

/// The namespaces a confined tree gets here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Namespaces {
    /// In a user namespace of its own (a caller other than root; root needs none).
    pub user: bool,
    /// The PID namespace has its own `pid_max` (Linux 6.14): the tree's process limit holds
    /// for every caller, root included.
    pub pid_max: bool,
}

/// How fully a profile can be enforced here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileState {
    Enforced,
    /// It runs, but part of it is not held (the text says which part).
    Partial(&'static str),
    /// It cannot run confined (the text says why): a call that needs it takes a card.
    Unavailable(&'static str),
}

impl ProfileState {
    pub fn as_str(&self) -> &'static str {
        match self {
            ProfileState::Enforced => "enforced",
            ProfileState::Partial(_) => "partial",
            ProfileState::Unavailable(_) => "unavailable",
        }
    }

    pub fn is_enforced(&self) -> bool {
        *self == ProfileState::Enforced
    }

    /// Why it is not enforced, when it is not.
    pub fn why(&self) -> Option<&'static str> {
        match self {
            ProfileState::Enforced => None,
            ProfileState::Partial(why) | ProfileState::Unavailable(why) => Some(why),
        }
    }
}

/// The kernel's support, probed once.
#[derive(Debug, Clone)]
pub struct Support {
    pub landlock: LandlockState,
    pub seccomp: bool,
}

impl Support {
    /// This process's answer (two system calls, the first time).
    pub fn get() -> &'static Support {
        static SUPPORT: OnceLock<Support> = OnceLock::new();
        SUPPORT.get_or_init(Support::probe)
    }

    #[cfg(target_os = "linux")]
    fn probe() -> Support {
        let landlock = match super::linux::landlock_abi() {
            Some(abi) if abi >= REQUIRED_ABI => LandlockState::Enforced(abi),
            Some(abi) => LandlockState::Partial(abi),
            None => LandlockState::Unavailable,
        };
        Support {
            landlock,
            seccomp: super::linux::seccomp_available(),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn probe() -> Support {
        Support {
            landlock: LandlockState::Unavailable,
            seccomp: false,
        }
    }

    /// The namespaces a confined tree gets here (a user namespace, or as root none; a mount
    /// and a PID namespace with its own `/proc`), `None` where it cannot get them: tried once,
    /// with `true`, the first time something asks.
    pub fn namespaces(&self) -> Option<Namespaces> {
        static WORKS: OnceLock<Option<Namespaces>> = OnceLock::new();
        *WORKS.get_or_init(|| {
            #[cfg(target_os = "linux")]
            {
                use super::linux::{kernel_at_least, namespaces_work};
                // SAFETY: geteuid cannot fail.
                let root = unsafe { libc::geteuid() } == 0;
                // Root needs no user namespace for the others, and a tree without one starts
                // faster (measured: about 0.1 ms a call); everyone else needs one.
                let user = if root && namespaces_work(false, 0) {
                    false
                } else if namespaces_work(true, 0) {
                    true
                } else {
                    return None;
                };
                Some(Namespaces {
                    user,
                    pid_max: kernel_at_least(6, 14),
                })
            }
            #[cfg(not(target_os = "linux"))]
            {
                None
            }
        })
    }

    /// Whether a tree can get a network namespace of its own, which a host list needs (its
    /// only way out is finch's proxy, `proxy.rs`): tried once, the first time something asks.
    pub fn network_namespace(&self) -> bool {
        static WORKS: OnceLock<bool> = OnceLock::new();
        *WORKS.get_or_init(|| {
            #[cfg(target_os = "linux")]
            {
                self.namespaces()
                    .is_some_and(|ns| super::linux::namespaces_work(ns.user, libc::CLONE_NEWNET))
            }
            #[cfg(not(target_os = "linux"))]
            {
                false
            }
        })
    }

    /// Whether a child gets a private mount namespace: every confined tree gets one with its
    /// other namespaces (`namespaces`).
    pub fn mount_namespace(&self) -> bool {
        self.namespaces().is_some()
    }

    /// Whether a tree's process limit holds for this caller: by `pid_max`, or by
    /// `RLIMIT_NPROC` in its user namespace for a caller other than root.
    pub fn process_limit(&self) -> bool {
        // SAFETY: geteuid cannot fail.
        let root = cfg!(unix) && unsafe { libc::geteuid() } == 0;
        self.namespaces()
            .is_some_and(|ns| ns.pid_max || (ns.user && !root))
    }

    /// How fully `profile` is enforced here. Both profiles need the same of the kernel:
    /// Landlock ABI 6, seccomp, and the namespaces of a tree.
    pub fn profile(&self, _profile: Profile) -> ProfileState {
        if cfg!(not(target_os = "linux")) {
            return ProfileState::Unavailable(
                "finch's kernel wall exists only on Linux so far (no Seatbelt or AppContainer backend)",
            );
        }
        match self.landlock {
            LandlockState::Unavailable => {
                return ProfileState::Unavailable(
                    "this kernel has no Landlock (not built in, or disabled at boot)",
                );
            }
            LandlockState::Partial(_) => {
                return ProfileState::Unavailable(
                    "this kernel's Landlock is older than ABI 6: network, device and signal rules would not hold",
                );
            }
            LandlockState::Enforced(_) => {}
        }
        if !self.seccomp {
            return ProfileState::Unavailable("this kernel has no seccomp filters");
        }
        if self.namespaces().is_none() {
            return ProfileState::Unavailable(NO_NAMESPACES);
        }
        ProfileState::Enforced
    }

    /// `finch sandbox status --json`.
    pub fn to_json(&self) -> Value {
        let mut profiles = serde_json::Map::new();
        for p in Profile::ALL {
            profiles.insert(p.as_str().into(), self.profile(p).as_str().into());
        }
        let namespaces = self.namespaces();
        json!({
            "landlock": {"abi": self.landlock.abi(), "status": self.landlock.as_str()},
            "seccomp": self.seccomp,
            "userns": namespaces.is_some_and(|ns| ns.user),
            "pidns": namespaces.is_some(),
            "processLimit": self.process_limit().then_some(super::PROCESS_LIMIT),
            "profiles": profiles,
        })
    }
}
