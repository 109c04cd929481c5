//! The `[world]` table: gravity, time step, duration, method, the shared checks, friction combining, sleeping
//! and the medium, after the front end's options (README.md, "A scene"; docs/scene-format.md).

use super::checks::{finite, positive, vec3};
use super::{limits, Limits, LoadOptions};
use crate::math::Vec3;
use crate::model::{FrictionCombine, MethodKey};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WorldT {
    pub gravity: Option<[f64; 3]>,
    pub dt: Option<f64>,
    pub duration: Option<f64>,
    pub method: Option<String>,
    pub check_intersections: Option<bool>,
    pub check_resolution: Option<u32>,
    pub friction_combine: Option<String>,
    pub sleep: Option<bool>,
    pub sleep_speed: Option<f64>,
    pub sleep_time: Option<f64>,
    pub fluid_density: Option<f64>,
    pub fluid_viscosity: Option<f64>,
    pub wind: Option<[f64; 3]>,
}

/// The `[world]` values after the front end's options: gravity, dt, duration, method, check, resolution.
pub(super) struct WorldValues {
    pub gravity: Vec3,
    pub dt: f64,
    pub duration: f64,
    pub method: MethodKey,
    pub check_intersections: bool,
    pub check_resolution: u32,
    pub friction_combine: FrictionCombine,
    pub sleep: crate::dynamics::sleep::SleepParams,
    pub fluid: Option<crate::dynamics::fluid::Fluid>,
}

pub(super) fn world_values(w: Option<WorldT>, opts: &LoadOptions, lim: &Limits) -> Result<WorldValues, String> {
    let w = w.unwrap_or(WorldT {
        gravity: None,
        dt: None,
        duration: None,
        method: None,
        check_intersections: None,
        check_resolution: None,
        friction_combine: None,
        sleep: None,
        sleep_speed: None,
        sleep_time: None,
        fluid_density: None,
        fluid_viscosity: None,
        wind: None,
    });
    let gravity = vec3(w.gravity.unwrap_or([0.0, 0.0, -9.81]), "world.gravity")?;
    // a value from the command line is named as the user gave it
    let dt_name = if opts.dt.is_some() { "--dt" } else { "world.dt" };
    let duration_name = if opts.duration.is_some() { "--duration" } else { "world.duration" };
    let dt = positive(opts.dt.or(w.dt).unwrap_or(0.01), dt_name)?;
    if dt < lim.dt_min() {
        return Err(format!(
            "{dt_name} = {} s is below the smallest time step allowed, {} s; lower that with `--limit dt_min=S` or `[limits] dt_min = S` in the scene",
            limits::show(dt),
            limits::show(lim.dt_min())
        ));
    }
    if dt > lim.dt_max() {
        return Err(format!(
            "{dt_name} = {} s is above the largest time step allowed, {} s; raise that with `--limit dt_max=S` or `[limits] dt_max = S` in the scene",
            limits::show(dt),
            limits::show(lim.dt_max())
        ));
    }
    let duration = finite(opts.duration.or(w.duration).unwrap_or(5.0), duration_name)?;
    if duration < 0.0 {
        return Err(format!("{duration_name} must be >= 0, got {duration}"));
    }
    let steps = (duration / dt).round();
    if steps > lim.steps() as f64 {
        return Err(format!(
            "{duration_name} = {} s at {dt_name} = {} s is {} steps, over the limit of {} steps per run; {}",
            limits::show(duration),
            limits::show(dt),
            limits::show(steps),
            lim.steps(),
            limits::how_to_raise("steps")
        ));
    }
    let method = match opts.method {
        Some(m) => m,
        None => MethodKey::parse(w.method.as_deref().unwrap_or("lcp")).map_err(|e| format!("world.method: {e}"))?,
    };
    let check_resolution = w.check_resolution.unwrap_or(16);
    if !(4..=256).contains(&check_resolution) {
        return Err(format!("world.check_resolution must be in 4..=256, got {check_resolution}"));
    }
    let check_intersections = opts.check_intersections.or(w.check_intersections).unwrap_or(false);
    let friction_combine = match w.friction_combine.as_deref() {
        None | Some("geometric") => FrictionCombine::GeometricMean,
        Some("max") => FrictionCombine::Max,
        Some(x) => return Err(format!("world.friction_combine must be \"geometric\" or \"max\", got \"{x}\"")),
    };
    let d = crate::dynamics::sleep::SleepParams::default();
    let sleep = crate::dynamics::sleep::SleepParams {
        enabled: w.sleep.unwrap_or(d.enabled),
        speed: finite(w.sleep_speed.unwrap_or(d.speed), "world.sleep_speed")?,
        time: finite(w.sleep_time.unwrap_or(d.time), "world.sleep_time")?,
    };
    if sleep.speed < 0.0 {
        return Err(format!("world.sleep_speed must be >= 0 m/s (0: nothing sleeps), got {}", sleep.speed));
    }
    if sleep.time <= 0.0 {
        return Err(format!("world.sleep_time must be > 0 s, got {}", sleep.time));
    }
    let density = finite(w.fluid_density.unwrap_or(0.0), "world.fluid_density")?;
    let viscosity = finite(w.fluid_viscosity.unwrap_or(0.0), "world.fluid_viscosity")?;
    if density < 0.0 || viscosity < 0.0 {
        return Err(format!("world.fluid_density and world.fluid_viscosity must be >= 0, got {density} and {viscosity}"));
    }
    let wind = vec3(w.wind.unwrap_or([0.0; 3]), "world.wind")?;
    let fluid = (density > 0.0 || viscosity > 0.0).then_some(crate::dynamics::fluid::Fluid { density, viscosity, wind });
    if fluid.is_none() && wind != Vec3::ZERO {
        return Err("world.wind needs a medium: set world.fluid_density or world.fluid_viscosity".into());
    }
    Ok(WorldValues { gravity, dt, duration, method, check_intersections, check_resolution, friction_combine, sleep, fluid })
}
