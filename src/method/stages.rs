//! Timed stages of a step: each method declares its stages once, as an enum (with [`stage_enum!`]), from which
//! come both the stage names (the `wall_<name>` columns of metrics.csv, the `stage_ms` keys of `cairn bench`)
//! and the slot of [`StepStats::stage_seconds`] a stage's wall time goes to. A [`StageTimer`] charges wall
//! time to a stage of that enum, never to a bare index, so that reordering the names cannot mislabel timings.

use super::{StepStats, MAX_STAGES};
use std::marker::PhantomData;
use std::time::Instant;

/// The timed stages of one method, in the order of their names.
pub trait Stage: Copy {
    /// The stage names, in declaration order (the order of `StepStats::stage_seconds`).
    const NAMES: &'static [&'static str];
    /// The slot of this stage in [`Stage::NAMES`] and in `StepStats::stage_seconds`.
    fn index(self) -> usize;
    /// The stage's name.
    fn name(self) -> &'static str {
        Self::NAMES[self.index()]
    }
}

/// Declares a method's stage enum: each variant with its name, in timing order. The enum gets
/// [`Stage`](crate::method::stages::Stage), whose `NAMES` list the names in declaration order and whose
/// `index` is the variant's position; at most [`MAX_STAGES`](crate::method::MAX_STAGES) stages.
macro_rules! stage_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $label:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $crate::method::stages::Stage for $name {
            const NAMES: &'static [&'static str] = &[$($label),+];
            fn index(self) -> usize {
                self as usize
            }
        }

        const _: () = assert!(<$name as $crate::method::stages::Stage>::NAMES.len() <= $crate::method::MAX_STAGES);
    };
}
pub(crate) use stage_enum;

/// Accumulates wall time per stage of `S` over one step. Each mark ([`StageTimer::lap`], [`StageTimer::time`])
/// charges the wall time since the previous mark (or the start) to the stage it names.
#[derive(Debug)]
pub struct StageTimer<S: Stage> {
    clock: Instant,
    seconds: [f64; MAX_STAGES],
    stage: PhantomData<S>,
}

impl<S: Stage> StageTimer<S> {
    /// A timer whose first lap starts now.
    pub fn start() -> Self {
        StageTimer { clock: Instant::now(), seconds: [0.0; MAX_STAGES], stage: PhantomData }
    }

    /// Charges the wall time since the previous mark to `stage`.
    pub fn lap(&mut self, stage: S) {
        let now = Instant::now();
        self.seconds[stage.index()] += (now - self.clock).as_secs_f64();
        self.clock = now;
    }

    /// Runs `f`, then charges the wall time since the previous mark (`f` included) to `stage`.
    pub fn time<R>(&mut self, stage: S, f: impl FnOnce() -> R) -> R {
        let r = f();
        self.lap(stage);
        r
    }

    /// Wall time charged to `stage` so far, s.
    pub fn seconds(&self, stage: S) -> f64 {
        self.seconds[stage.index()]
    }

    /// Adds the accumulated times to `stats.stage_seconds`.
    pub fn finish(&self, stats: &mut StepStats) {
        for (total, s) in stats.stage_seconds.iter_mut().zip(&self.seconds) {
            *total += s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    stage_enum! {
        enum Test {
            First = "first",
            Second = "second",
            Third = "third",
        }
    }

    #[test]
    fn names_and_slots_come_from_the_enum() {
        assert_eq!(Test::NAMES, &["first", "second", "third"]);
        assert_eq!([Test::First.index(), Test::Second.index(), Test::Third.index()], [0, 1, 2]);
        assert_eq!(Test::Third.name(), "third");
    }

    #[test]
    fn time_goes_to_the_named_stage() {
        let mut t = StageTimer::<Test>::start();
        t.time(Test::Third, || std::thread::sleep(std::time::Duration::from_millis(2)));
        t.lap(Test::First);
        let mut stats = StepStats::default();
        t.finish(&mut stats);
        assert!(stats.stage_seconds[2] >= 0.002, "{:?}", stats.stage_seconds);
        assert!(stats.stage_seconds[0] < stats.stage_seconds[2] && stats.stage_seconds[1] == 0.0);
    }
}
