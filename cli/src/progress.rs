//! Progress bars on stderr for the commands that can take long (`run`, `validate`, `compare`, `bench`,
//! `export`): drawn only when stderr is a terminal, so pipes, CI logs and tests see nothing of them.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A bar of `len` units named `unit` ("steps", "experiments", "scenes", ...), its message the item at work;
/// hidden when stderr is not a terminal. It ticks on its own, so the elapsed time moves during a long item.
pub fn bar(len: u64, unit: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(len);
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit}  {{elapsed}} ({{eta}} left)  {{msg}}");
    b.set_style(ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    b.enable_steady_tick(Duration::from_millis(200));
    b
}

/// A spinner with `msg`, for work without a count (`export`); hidden when stderr is not a terminal.
pub fn spinner(msg: String) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new_spinner();
    b.set_style(ProgressStyle::with_template("{spinner} {msg}  {elapsed}").unwrap_or_else(|_| ProgressStyle::default_spinner()));
    b.set_message(msg);
    b.enable_steady_tick(Duration::from_millis(100));
    b
}
