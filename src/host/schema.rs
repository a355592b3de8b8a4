//! Checking a call's arguments against a tool's JSON Schema (`jsonschema`) before anything runs,
//! with messages a model can act on: every problem, each with the argument it is about.

use jsonschema::Validator;
use serde_json::Value;

/// A compiled schema.
pub struct Schema {
    validator: Option<Validator>,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Schema")
    }
}

impl Schema {
    /// Compiles `schema`. A schema that does not compile (a provider's mistake, not the
    /// caller's) accepts every object: the tool itself then sees the arguments as sent.
    pub fn compile(schema: &Value) -> Schema {
        Schema {
            validator: jsonschema::validator_for(schema).ok(),
        }
    }

    /// `Err` with one line per problem, e.g. `/offset: "x" is not of type "integer"`.
    pub fn check(&self, args: &Value) -> Result<(), Vec<String>> {
        let Some(validator) = &self.validator else {
            return Ok(());
        };
        // The common case answers without building any error.
        if validator.is_valid(args) {
            return Ok(());
        }
        let problems: Vec<String> = validator
            .iter_errors(args)
            .take(10)
            .map(|e| {
                let at = e.instance_path().as_str().to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("{at}: {e}")
                }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn problems_name_the_argument() {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
            "required": ["path"],
            "additionalProperties": false
        }));
        assert!(schema.check(&json!({"path": "a"})).is_ok());
        let problems = schema
            .check(&json!({"offset": "x", "extra": 1}))
            .unwrap_err();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(
            problems.iter().any(|p| p.contains("\"path\"")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("/offset:") && p.contains("integer")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_broken_schema_accepts_everything() {
        let schema = Schema::compile(&json!({"type": 12}));
        assert!(schema.check(&json!({"anything": true})).is_ok());
    }
}
