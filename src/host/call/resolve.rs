//! The first step of a call: which tool it names (the model-facing name, else a raw name
//! exactly one tool registered), whether the session may call it (a dynamic tool must have
//! been activated by ToolSearch), and whether its arguments are an object that satisfies the
//! tool's JSON Schema. A dispatcher called without `action` asks only for its manual: it is
//! resolved as such and passes no gate.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::record::{Failure, Step};
use super::refusal::Refusal;
use crate::host::catalog::{Catalog, Exposure, Lookup, ToolSpec};
use crate::host::provider::Provider;
use crate::host::schema::Schema;
use crate::host::toolsearch;

/// A call whose tool and arguments are in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// The catalog index of its tool.
    Tool(usize),
    /// It asks only for the manual of the tool at this index.
    Manual(usize),
}

/// A call that ends here, before the gate.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// The name it resolved to, or as given.
    pub tool: String,
    pub step: Step,
    pub failure: Failure,
    pub refusal: Refusal,
}

/// The providers and the catalog as this step sees them.
pub struct Tools<'a> {
    pub catalog: &'a Catalog,
    pub providers: &'a [Box<dyn Provider>],
    /// For each catalog entry, the index of its provider.
    pub provider_of: &'a [usize],
    /// The dynamic tools the session activated.
    pub active: &'a HashSet<String>,
}

impl Tools<'_> {
    /// Whether the session can call `tool` now.
    pub fn is_active(&self, tool: &ToolSpec) -> bool {
        tool.def.exposure == Exposure::Startup || self.active.contains(&tool.name)
    }

    /// Resolves a call of `name` with `args` (compiling its tool's schema into `schemas` once).
    pub fn resolve(
        &self,
        name: &str,
        args: &Value,
        schemas: &mut HashMap<usize, Schema>,
    ) -> Result<Resolved, Rejected> {
        let rejected = |tool: &str, step, failure, refusal| Rejected {
            tool: tool.to_string(),
            step,
            failure,
            refusal,
        };
        let index = match self.catalog.lookup(name) {
            Lookup::Found(i) => i,
            Lookup::Unknown => {
                if let Some(why) = self.providers.iter().find_map(|p| p.not_started(name)) {
                    return Err(rejected(
                        name,
                        Step::NotStarted,
                        Failure::Refused,
                        Refusal::NotStarted(why),
                    ));
                }
                return Err(rejected(
                    name,
                    Step::UnknownTool,
                    Failure::UnknownTool,
                    self.unknown(name),
                ));
            }
            Lookup::Ambiguous => {
                let refusal = Refusal::Ambiguous {
                    name: name.to_string(),
                    candidates: self
                        .catalog
                        .candidates(name)
                        .into_iter()
                        .map(str::to_string)
                        .collect(),
                };
                return Err(rejected(
                    name,
                    Step::UnknownTool,
                    Failure::UnknownTool,
                    refusal,
                ));
            }
        };
        let tool = self.catalog.get(index);
        if !self.is_active(tool) {
            let refusal = Refusal::NotActive {
                tool: tool.name.clone(),
                raw_name: tool.def.raw_name.clone(),
            };
            return Err(rejected(
                &tool.name,
                Step::NotActive,
                Failure::NotActive,
                refusal,
            ));
        }
        let invalid = |refusal| {
            rejected(
                &tool.name,
                Step::InvalidArguments,
                Failure::InvalidArguments,
                refusal,
            )
        };
        let Value::Object(_) = args else {
            return Err(invalid(Refusal::NotAnObject {
                tool: tool.name.clone(),
                args: args.to_string(),
            }));
        };
        if self.providers[self.provider_of[index]].is_manual_call(tool, args) {
            return Ok(Resolved::Manual(index));
        }
        let schema = schemas
            .entry(index)
            .or_insert_with(|| Schema::compile(&tool.def.input_schema));
        if let Err(problems) = schema.check(args) {
            return Err(invalid(Refusal::InvalidArguments {
                tool: tool.name.clone(),
                problems,
            }));
        }
        Ok(Resolved::Tool(index))
    }

    /// An unknown name, with the catalog's closest names.
    fn unknown(&self, name: &str) -> Refusal {
        let hits = self.catalog.index().search(
            self.catalog.tools(),
            &name.replace(['_', '-'], " "),
            &toolsearch::SourceFilter::Any,
            3,
        );
        Refusal::UnknownTool {
            name: name.to_string(),
            similar: hits
                .iter()
                .map(|h| self.catalog.get(h.index).name.clone())
                .collect(),
        }
    }
}
