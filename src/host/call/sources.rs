//! The host's providers and its catalog of their tools: rebuilt when a provider's tools
//! change, replaced on a reload, and — before a call that searches the catalog (ToolSearch) —
//! waited for, bounded, while a source it searches is still starting with no tools known.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::context::HostEvent;
use super::{Host, build_catalog};
use crate::host::catalog::{Exposure, Lookup, ToolSpec};
use crate::host::output::Content;
use crate::host::provider::{CallEvent, Provider};
use crate::host::tool::Layer;

impl Host {
    /// Rebuilds the catalog from the providers (after mini tools changed). Activations and
    /// session answers are kept by name.
    pub fn rebuild_catalog(&mut self) {
        let (catalog, provider_of) = build_catalog(&self.providers);
        self.catalog = catalog;
        self.provider_of = provider_of;
        self.generations = self.providers.iter().map(|p| p.generation()).collect();
        self.schemas.clear();
    }

    /// Rebuilds the catalog when a provider's tools changed on their own (mini tools that
    /// finished starting in the background) and says whether it did. Every call does this
    /// first; a front end that lists tools does it before listing.
    pub fn refresh(&mut self) -> bool {
        let moved = self
            .providers
            .iter()
            .zip(&self.generations)
            .any(|(p, g)| p.generation() != *g);
        if moved {
            self.rebuild_catalog();
        }
        moved
    }

    /// Stops every provider (their processes and connections end when they are dropped) and
    /// empties the catalog: the first half of a reload.
    pub fn clear_providers(&mut self) {
        self.providers.clear();
        self.rebuild_catalog();
    }

    /// Installs new providers and rebuilds the catalog: the second half of a reload. The
    /// session (activations, answers, transcript) is kept.
    pub fn set_providers(&mut self, providers: Vec<Box<dyn Provider>>) {
        self.providers = providers;
        self.rebuild_catalog();
    }

    /// The tools the session can call now: every startup tool and the activated dynamic ones.
    pub fn active_tools(&self) -> Vec<&ToolSpec> {
        self.catalog
            .tools()
            .iter()
            .filter(|t| {
                t.def.exposure == Exposure::Startup || self.session.active.contains(&t.name)
            })
            .collect()
    }

    pub(super) fn observe(&self, event: &CallEvent) {
        for provider in &self.providers {
            provider.observe(event);
        }
    }

    /// How long a catalog search waits for sources still starting: `[mcp] timeout`, the bound
    /// of a server's connection. (Mini tools never count as starting: those the catalog cache
    /// has no tools of activate before the host answers.)
    fn source_wait(&self) -> Duration {
        self.env.settings.mcp.timeout
    }

    /// Before a call that searches the catalog (`Provider::searches`: ToolSearch): waits (at
    /// most `source_wait`) for the sources it searches whose tools are not known yet — an MCP
    /// server still connecting with nothing in the catalog cache — so that it does not answer
    /// without tools a moment away; rebuilds the catalog; and returns the note its result
    /// gets when some of them still have no tool in it.
    pub(super) fn await_searched_sources(&mut self, name: &str, args: &Value) -> Option<Content> {
        let Lookup::Found(index) = self.catalog.lookup(name) else {
            return None;
        };
        let filter =
            self.providers[self.provider_of[index]].searches(self.catalog.get(index), args)?;
        let starting: Vec<String> = self
            .providers
            .iter()
            .flat_map(|p| p.starting())
            .filter(|source| {
                let layer = if source.starts_with("mcp:") {
                    Layer::Mcp
                } else {
                    Layer::MiniTool
                };
                filter.admits_source(layer, source)
            })
            .collect();
        if starting.is_empty() {
            return None;
        }
        let deadline = Instant::now() + self.source_wait();
        for provider in &self.providers {
            provider.await_started(deadline);
        }
        if self.refresh() {
            self.events.push(HostEvent::ToolsChanged);
        }
        let tools = self.catalog.tools();
        let unsearched: Vec<String> = starting
            .into_iter()
            .filter(|source| !tools.iter().any(|t| &t.def.source == source))
            .collect();
        (!unsearched.is_empty()).then(|| {
            Content::Text(format!(
                "Not searched: {} (no tools known after {}: still starting, or it failed to start); search again later.",
                unsearched.join(", "),
                humantime(self.source_wait())
            ))
        })
    }
}

/// `20 s`, `1.5 s`, `300 ms`.
fn humantime(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
