//! A method's parameters: one struct per method, read once from its `[solver.<key>]` table when the scene is
//! loaded and kept in the model as a typed value ([`SolverParams`]) that the method takes when it is created.

use crate::model::MethodKey;
use serde::de::DeserializeOwned;
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A method's parameters: read from `[solver.<key>]` with serde (unknown keys are errors that list the allowed
/// ones; missing keys take the defaults) and checked by [`Params::validate`].
pub trait Params: Default + Clone + std::fmt::Debug + DeserializeOwned + Send + Sync + 'static {
    /// The method the table belongs to.
    const KEY: MethodKey;

    /// Checks every value; a message names the key (`solver.lcp.iterations must be >= 1`).
    fn validate(&self) -> Result<(), String>;

    /// The parameters of a `[solver.<key>]` table, checked.
    fn from_table(table: &toml::Table) -> Result<Self, String> {
        let p: Self = toml::Value::Table(table.clone()).try_into().map_err(|e: toml::de::Error| e.message().trim().to_string())?;
        p.validate()?;
        Ok(p)
    }
}

/// One method's parsed parameters, of a type only that method knows.
pub type Value = Arc<dyn Any + Send + Sync>;

/// The parsed value of a `[solver.<key>]` table, for a [`crate::method::Catalog`].
pub fn parse<P: Params>(table: &toml::Table) -> Result<Value, String> {
    Ok(Arc::new(P::from_table(table)?))
}

/// The scene's `[solver.<key>]` tables, each parsed and checked by its method when the scene was loaded, so a
/// model keeps every method's parameters, not only those of the method it runs.
#[derive(Clone, Default)]
pub struct SolverParams {
    by_method: BTreeMap<MethodKey, Value>,
}

impl SolverParams {
    /// Sets method `key`'s parameters (a value of that method's [`Params`] type).
    pub fn insert(&mut self, key: MethodKey, value: Value) {
        self.by_method.insert(key, value);
    }

    /// Whether the scene gave a `[solver.<key>]` table.
    pub fn contains(&self, key: MethodKey) -> bool {
        self.by_method.contains_key(&key)
    }

    /// The parameters of `P`'s method: the scene's table, or the defaults when it gave none.
    pub fn get<P: Params>(&self) -> P {
        match self.by_method.get(&P::KEY) {
            Some(v) => v.downcast_ref::<P>().cloned().expect("a catalog stores each method's own parameter type"),
            None => P::default(),
        }
    }
}

impl std::fmt::Debug for SolverParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.by_method.keys()).finish()
    }
}

/// Helpers for [`Params::validate`]: each message names the key `solver.<method>.<key>`.
pub mod check {
    use crate::model::MethodKey;

    /// `v` must be finite and ≥ 0.
    pub fn non_negative(m: MethodKey, key: &str, v: f64) -> Result<(), String> {
        if !v.is_finite() {
            return Err(format!("solver.{m}.{key} must be a finite number, got {v}"));
        }
        if v < 0.0 {
            return Err(format!("solver.{m}.{key} must be >= 0, got {v}"));
        }
        Ok(())
    }

    /// `v` must be finite and > 0.
    pub fn positive(m: MethodKey, key: &str, v: f64) -> Result<(), String> {
        if !v.is_finite() {
            return Err(format!("solver.{m}.{key} must be a finite number, got {v}"));
        }
        if v <= 0.0 {
            return Err(format!("solver.{m}.{key} must be > 0, got {v}"));
        }
        Ok(())
    }

    /// A keyword value of `solver.<m>.<key>`: one of `allowed` (the message lists them).
    pub fn keyword<'de, D: serde::Deserializer<'de>, T: Copy>(d: D, m: MethodKey, key: &str, allowed: &[(&str, T)]) -> Result<T, D::Error> {
        use serde::Deserialize;
        let s = String::deserialize(d)?;
        allowed.iter().find(|(name, _)| *name == s).map(|(_, v)| *v).ok_or_else(|| {
            let names: Vec<String> = allowed.iter().map(|(n, _)| format!("`{n}`")).collect();
            serde::de::Error::custom(format!("solver.{m}.{key} must be {}, got `{s}`", names.join(" or ")))
        })
    }

    /// `v` must lie in `lo..=hi`.
    pub fn within(m: MethodKey, key: &str, v: u32, lo: u32, hi: u32) -> Result<(), String> {
        if !(lo..=hi).contains(&v) {
            return Err(format!("solver.{m}.{key} must be in {lo}..={hi}, got {v}"));
        }
        Ok(())
    }
}
