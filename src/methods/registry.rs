//! The one registry of methods: per scene key, whether this build runs it, how its `[solver.<key>]` table is
//! checked, what it supports and how it is created. Adding a method is its folder plus one entry here (see
//! ARCHITECTURE.md, "Adding a method").

use super::{abd, implicit, impulse, lcp, volumetric, Method};
use crate::error::InputError;
use crate::model::{MethodKey, Model};
use serde::de::DeserializeOwned;

/// A method's parameters: one struct, read from `[solver.<key>]` with serde (unknown keys are errors that list
/// the allowed ones; missing keys take the defaults) and checked by [`Params::validate`].
pub trait Params: Default + DeserializeOwned {
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

    /// The model's parameters for this method: its table, or the defaults when the scene has none.
    fn from_model(model: &Model) -> Result<Self, String> {
        model
            .solver
            .get(&Self::KEY)
            .map_or_else(|| Ok(Self::default()), Self::from_table)
            .map_err(|e| format!("[solver.{}]: {e}", Self::KEY))
    }
}

/// What the registry knows of one method.
pub struct Entry {
    pub key: MethodKey,
    /// Whether this build runs the method.
    pub implemented: bool,
    /// Checks the method's `[solver.<key>]` table.
    pub check_params: fn(&toml::Table) -> Result<(), String>,
    /// Checks that the method can run everything the model uses (joints, proxies, shapes).
    pub supports: fn(&Model) -> Result<(), String>,
    /// Creates the method for a model it supports.
    pub create: fn(&Model) -> Result<Box<dyn Method + Send>, InputError>,
}

fn check<P: Params>(t: &toml::Table) -> Result<(), String> {
    P::from_table(t).map(|_| ())
}

/// Every method of the scene format, in [`MethodKey::ALL`] order.
pub static REGISTRY: [Entry; 5] = [
    Entry { key: MethodKey::Lcp, implemented: true, check_params: check::<lcp::LcpParams>, supports: lcp::supports, create: lcp::create },
    Entry {
        key: MethodKey::Impulse,
        implemented: true,
        check_params: check::<impulse::ImpulseParams>,
        supports: impulse::supports,
        create: impulse::create,
    },
    Entry {
        key: MethodKey::VolumetricPenalty,
        implemented: true,
        check_params: check::<volumetric::VolumetricParams>,
        supports: volumetric::supports,
        create: volumetric::create,
    },
    Entry {
        key: MethodKey::ImplicitPenalty,
        // runs contact, friction and the implicit system; joints and proxies are refused by `supports` (see
        // ARCHITECTURE.md, "The implicit-penalty step")
        implemented: true,
        check_params: check::<implicit::ImplicitParams>,
        supports: implicit::supports,
        create: implicit::create,
    },
    Entry { key: MethodKey::Abd, implemented: true, check_params: check::<abd::AbdParams>, supports: abd::supports, create: abd::create },
];

/// The registry entry of `key`.
pub fn entry(key: MethodKey) -> &'static Entry {
    // REGISTRY is in MethodKey's declaration order (checked by a test below)
    &REGISTRY[key as usize]
}

/// The keys this build runs.
pub fn implemented() -> Vec<MethodKey> {
    REGISTRY.iter().filter(|e| e.implemented).map(|e| e.key).collect()
}

/// Checks that the model's method is implemented and supports everything the model uses.
pub fn check_supported(model: &Model) -> Result<(), String> {
    let e = entry(model.method);
    if !e.implemented {
        return Err(format!(
            "method `{}` is not implemented yet in this build (implemented: {})",
            model.method,
            implemented().iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    (e.supports)(model)
}

/// Creates the method the model names.
pub fn create(model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
    check_supported(model).map_err(|e| InputError::at(&model.name, e))?;
    (entry(model.method).create)(model)
}

/// The common message of a method that runs no joints.
pub fn no_joints(model: &Model) -> Result<(), String> {
    if let Some(j) = model.joints.first() {
        let b2 = j.body2.map_or("world".to_string(), |b| model.bodies[b].name.clone());
        return Err(format!(
            "method `{}` cannot run joints yet: {} joint(s), the first a {:?} joint between `{}` and `{}`",
            model.method,
            model.joints.len(),
            j.kind,
            model.bodies[j.body1].name,
            b2
        ));
    }
    Ok(())
}

/// The common message of a method that drives no haptic proxies.
pub fn no_proxies(model: &Model) -> Result<(), String> {
    if !model.proxies.is_empty() {
        return Err(format!(
            "method `{}` cannot drive haptic proxies yet ({} `[[proxy]]` table(s)): use `volumetric-penalty`, `lcp` or `impulse`",
            model.method,
            model.proxies.len()
        ));
    }
    Ok(())
}

/// Helpers for [`Params::validate`]: each message names the key `solver.<method>.<key>`.
pub mod param {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_has_every_key_once_in_order() {
        let keys: Vec<MethodKey> = REGISTRY.iter().map(|e| e.key).collect();
        assert_eq!(keys, MethodKey::ALL.to_vec());
        for k in MethodKey::ALL {
            assert_eq!(entry(k).key, k);
            assert_eq!(MethodKey::parse(k.as_str()), Ok(k));
        }
        assert!(MethodKey::parse("nope").unwrap_err().contains("`implicit-penalty`"));
    }
}
