//! What a method carries from one step to the next (warm starts, friction anchors, a barrier stiffness): a value
//! of the method's own type, held in [`crate::state::State::carry`] as one opaque slot, so that a copy of the
//! state restores a run bit for bit and the core needs to know no method's type.
//!
//! In memory the slot holds the method's value; written out (serde) it is that value's JSON, and read back it
//! stays JSON until the method takes it and reads it as its own type again (`serde_json` keeps every float's
//! bits).

use crate::error::SimError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::Any;

/// A type a method carries between steps.
pub trait Carried: Any + Clone + std::fmt::Debug + Serialize + DeserializeOwned + Send + Sync {}
impl<T: Any + Clone + std::fmt::Debug + Serialize + DeserializeOwned + Send + Sync> Carried for T {}

/// The object-safe face of a [`Carried`] value.
trait Held: Any + std::fmt::Debug + Send + Sync {
    fn clone_box(&self) -> Box<dyn Held>;
    fn to_json(&self) -> Result<serde_json::Value, serde_json::Error>;
    fn as_any(&self) -> &dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: Carried> Held for T {
    fn clone_box(&self) -> Box<dyn Held> {
        Box::new(self.clone())
    }
    fn to_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

#[derive(Debug, Default)]
enum Slot {
    #[default]
    Empty,
    /// The method's value.
    Held(Box<dyn Held>),
    /// A value read back from a snapshot, not yet taken by its method.
    Json(serde_json::Value),
}

/// The slot of [`crate::state::State`] that the state's method owns. Empty before the method's first step.
#[derive(Debug, Default)]
pub struct Carry(Slot);

impl Carry {
    /// Takes the method's value out of the slot (leaving it empty): `None` before the method's first step. An
    /// error when the slot holds another type, or JSON that is not this type's (a snapshot of another build).
    pub fn take<T: Carried>(&mut self, step: u64) -> Result<Option<T>, SimError> {
        let what = || format!("the state's method data is not a `{}`", std::any::type_name::<T>());
        match std::mem::take(&mut self.0) {
            Slot::Empty => Ok(None),
            Slot::Held(b) => match b.into_any().downcast::<T>() {
                Ok(t) => Ok(Some(*t)),
                Err(_) => Err(SimError::Solver { step, stage: "carry", message: what() }),
            },
            Slot::Json(v) => serde_json::from_value(v).map(Some).map_err(|e| SimError::Solver {
                step,
                stage: "carry",
                message: format!("{}: {e}", what()),
            }),
        }
    }

    /// [`Carry::take`], with the type's default before the method's first step.
    pub fn take_or_default<T: Carried + Default>(&mut self, step: u64) -> Result<T, SimError> {
        Ok(self.take(step)?.unwrap_or_default())
    }

    /// Puts the method's value back for the next step.
    pub fn put<T: Carried>(&mut self, value: T) {
        self.0 = Slot::Held(Box::new(value));
    }

    /// The method's value, when the slot holds one of type `T` in memory (for tests and inspection).
    pub fn get<T: Carried>(&self) -> Option<&T> {
        match &self.0 {
            Slot::Held(b) => b.as_any().downcast_ref::<T>(),
            _ => None,
        }
    }

    /// Whether the slot is empty (no step taken yet).
    pub fn is_empty(&self) -> bool {
        matches!(self.0, Slot::Empty)
    }
}

impl Clone for Carry {
    fn clone(&self) -> Self {
        Carry(match &self.0 {
            Slot::Empty => Slot::Empty,
            Slot::Held(b) => Slot::Held(b.clone_box()),
            Slot::Json(v) => Slot::Json(v.clone()),
        })
    }
}

impl Serialize for Carry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Slot::Empty => s.serialize_none(),
            Slot::Held(b) => b.to_json().map_err(serde::ser::Error::custom)?.serialize(s),
            Slot::Json(v) => v.serialize(s),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Carry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Carry(match Option::<serde_json::Value>::deserialize(d)? {
            None | Some(serde_json::Value::Null) => Slot::Empty,
            Some(v) => Slot::Json(v),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Warm {
        k: f64,
        v: Vec<(u32, f64)>,
    }

    #[test]
    fn a_value_survives_json_bit_for_bit_and_a_wrong_type_is_an_error() {
        let w = Warm { k: 0.1 + 0.2, v: vec![(3, -1e-300), (7, std::f64::consts::PI)] };
        let mut c = Carry::default();
        assert!(c.take::<Warm>(0).unwrap().is_none());
        c.put(w.clone());
        assert_eq!(c.get::<Warm>(), Some(&w));
        let text = serde_json::to_string(&c).unwrap();
        let mut back: Carry = serde_json::from_str(&text).unwrap();
        let mut copy = back.clone();
        let r = back.take::<Warm>(0).unwrap().unwrap();
        assert_eq!(r.k.to_bits(), w.k.to_bits());
        assert_eq!(r, w);
        assert!(back.is_empty());
        let e = copy.take::<Vec<u8>>(5).unwrap_err().to_string();
        assert!(e.contains("step 5") && e.contains("Vec<u8>"), "{e}");
        let empty: Carry = serde_json::from_str(&serde_json::to_string(&Carry::default()).unwrap()).unwrap();
        assert!(empty.is_empty());
    }
}
