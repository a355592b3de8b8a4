//! What the host needs from the process, resolved once (STYLE habit 1): homes, settings,
//! environment, clock. Every provider and every call borrows it; nothing changes it while the
//! host lives.

use chrono::{DateTime, FixedOffset, Utc};

use crate::config::Settings;
use crate::env::Env;
use crate::homes::Homes;

/// What the host needs from the process, resolved once: homes, settings, environment, clock.
#[derive(Debug, Clone)]
pub struct HostEnv {
    pub homes: Homes,
    pub settings: Settings,
    pub env: Env,
    /// A fixed clock (`FINCH_NOW`); the system clock when `None`.
    pub fixed_now: Option<DateTime<FixedOffset>>,
    /// The front end passes embedded resources on (`finch run --serve mcp`): Read then also
    /// returns a PDF's original as one, beside its text.
    pub embed_resources: bool,
}

impl HostEnv {
    pub fn now(&self) -> DateTime<FixedOffset> {
        self.fixed_now
            .unwrap_or_else(|| chrono::Local::now().fixed_offset())
    }

    pub fn now_utc(&self) -> DateTime<Utc> {
        self.now().with_timezone(&Utc)
    }
}
