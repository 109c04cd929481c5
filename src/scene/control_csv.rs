//! `cairn run --ctrl FILE.csv`: controls over time for scripted runs without Python. The first row names the
//! columns: `time`, then one actuator name per column; each further row gives a time (strictly increasing) and
//! each actuator's control then. Between rows a control is linear, before the first and after the last held.
//! Blank lines and lines starting with `#` are skipped.

use crate::dynamics::actuator::{Control, Schedule};
use crate::error::InputError;
use crate::model::Model;
use std::path::Path;

/// The schedules of `text` (the file `file`) for `model`'s actuators; an error names the file, the line and
/// the column.
pub fn parse(text: &str, file: &str, model: &Model) -> Result<Vec<Control>, InputError> {
    let err = |line: usize, msg: String| InputError(format!("{file}: line {line}: {msg}"));
    let mut rows = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (hline, header) =
        rows.next().ok_or_else(|| InputError(format!("{file}: empty: the first line names the columns `time,<actuator>,...`")))?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    if cols.first() != Some(&"time") {
        return Err(err(hline, format!("the first column must be `time`, got `{}`", cols[0])));
    }
    let mut actuators = Vec::new();
    for c in &cols[1..] {
        let k = model.actuator_index(c).ok_or_else(|| {
            let names: Vec<String> = model.actuators.iter().map(|a| format!("`{}`", a.name)).collect();
            err(
                hline,
                format!(
                    "unknown actuator `{c}`; the scene's actuators: {}",
                    if names.is_empty() { "none".into() } else { names.join(", ") }
                ),
            )
        })?;
        if actuators.contains(&k) {
            return Err(err(hline, format!("actuator `{c}` has two columns")));
        }
        actuators.push(k);
    }
    if actuators.is_empty() {
        return Err(err(hline, "no actuator column after `time`".into()));
    }
    let mut paths: Vec<Vec<[f64; 2]>> = vec![Vec::new(); actuators.len()];
    let mut last_time = f64::NEG_INFINITY;
    for (line, row) in rows {
        let cells: Vec<&str> = row.split(',').map(str::trim).collect();
        if cells.len() != cols.len() {
            return Err(err(line, format!("{} values, but the header names {} columns", cells.len(), cols.len())));
        }
        let num = |k: usize| -> Result<f64, InputError> {
            let x: f64 = cells[k].parse().map_err(|_| err(line, format!("column `{}`: `{}` is not a number", cols[k], cells[k])))?;
            if !x.is_finite() {
                return Err(err(line, format!("column `{}`: {x} is not finite", cols[k])));
            }
            Ok(x)
        };
        let t = num(0)?;
        if t <= last_time {
            return Err(err(line, format!("time {t} must be greater than the previous row's {last_time}")));
        }
        last_time = t;
        for (c, path) in paths.iter_mut().enumerate() {
            path.push([t, num(c + 1)?]);
        }
    }
    if last_time == f64::NEG_INFINITY {
        return Err(InputError(format!("{file}: no rows after the header")));
    }
    Ok(actuators.into_iter().zip(paths).map(|(actuator, p)| Control { actuator, schedule: Schedule::Path(p) }).collect())
}

/// Reads `path` and puts its schedules on `model`, replacing the scene's `[[control]]` of the same actuators.
pub fn apply(path: &Path, model: &mut Model) -> Result<(), InputError> {
    let file = path.display().to_string();
    let text = super::limits::read_text_capped(path, super::limits::FileKind::Scene).map_err(|e| InputError(format!("{file}: {e}")))?;
    let controls = parse(&text, &file, model)?;
    model.controls.retain(|c| !controls.iter().any(|n| n.actuator == c.actuator));
    model.controls.extend(controls);
    Ok(())
}
