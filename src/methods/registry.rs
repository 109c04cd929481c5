//! The one list of methods: per scene key, how its `[solver.<key>]` table is parsed and how it is created.
//! Every other list of methods (tests, validate, the command line, the viewer, Python) derives from
//! [`MethodKey::ALL`]; the `match` below is exhaustive, so a new key without its entry does not compile (see
//! ARCHITECTURE.md, "Adding a method").

use super::{abd, implicit, impulse, lcp, volumetric};
use crate::error::InputError;
use crate::method::params::{self, Params, Value};
use crate::method::{Catalog, Method};
use crate::model::{MethodKey, Model};

/// What the registry knows of one method.
pub struct Entry {
    pub key: MethodKey,
    /// Parses and checks the method's `[solver.<key>]` table.
    pub parse: fn(&toml::Table) -> Result<Value, String>,
    /// Creates the method for a model (its parameters are the model's `solver` value for the key).
    pub create: fn(&Model) -> Result<Box<dyn Method + Send>, InputError>,
}

/// The registry entry of `key`.
pub fn entry(key: MethodKey) -> Entry {
    fn e<P: Params>(create: fn(&Model) -> Result<Box<dyn Method + Send>, InputError>) -> Entry {
        Entry { key: P::KEY, parse: params::parse::<P>, create }
    }
    match key {
        MethodKey::Lcp => e::<lcp::LcpParams>(lcp::create),
        MethodKey::Impulse => e::<impulse::ImpulseParams>(impulse::create),
        MethodKey::VolumetricPenalty => e::<volumetric::VolumetricParams>(volumetric::create),
        MethodKey::ImplicitPenalty => e::<implicit::ImplicitParams>(implicit::create),
        MethodKey::Abd => e::<abd::AbdParams>(abd::create),
    }
}

/// The catalog of this build's methods ([`crate::METHODS`]).
pub struct Registry;

impl Catalog for Registry {
    fn parse_params(&self, key: MethodKey, table: &toml::Table) -> Result<Value, String> {
        (entry(key).parse)(table)
    }

    fn create(&self, model: &Model) -> Result<Box<dyn Method + Send>, InputError> {
        (entry(model.method).create)(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_its_own_entry() {
        for k in MethodKey::ALL {
            assert_eq!(entry(k).key, k);
            assert_eq!(MethodKey::parse(k.as_str()), Ok(k));
        }
        assert!(MethodKey::parse("nope").unwrap_err().contains("`implicit-penalty`"));
    }
}
