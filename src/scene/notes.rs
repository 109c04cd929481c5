//! The loader's notes as a person reads them: one line per kind. A model keeps every note (`Model::notes`,
//! summary.json's `notes`); what `cairn run` prints and Python warns is [`display_lines`]: notes that differ
//! only in the name they are about become one line naming a few ("joint `a`, `b` and 14 more: …"), everything
//! cairn ignores one line, and a long listing its first and last items.

/// The phrase that starts a loader's "cannot use it" notes.
const IGNORED: &str = "ignored (cairn cannot use it): ";

/// Items a grouped or shortened line names before "and N more".
const NAMED: usize = 2;

/// Length above which a comma-separated listing is shortened.
const LONG: usize = 160;

/// Length of the list of ignored parts on one line (after the file and the phrase).
const IGNORED_LIST: usize = 100;

/// Every note of a model loaded from `shown` (the path as the user gave it), each starting with the file it
/// is about.
pub fn every_line(shown: &str, notes: &[String]) -> Vec<String> {
    let name = std::path::Path::new(shown).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    notes
        .iter()
        .map(|n| {
            // a robot file run by itself: its notes name it already
            if n.starts_with(&format!("{shown}:")) || (!name.is_empty() && n.starts_with(&format!("{name}:"))) {
                n.clone()
            } else {
                format!("{shown}: {n}")
            }
        })
        .collect()
}

/// The notes of a model loaded from `shown`, one line per kind, each starting with the file it is about;
/// `full`: where the whole list is (e.g. "summary.json's `notes`").
pub fn display_lines(shown: &str, notes: &[String], full: &str) -> Vec<String> {
    let prefixed = every_line(shown, notes);
    // groups in order of first appearance: (key, lines)
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for line in prefixed {
        let key = match line.find(IGNORED) {
            Some(i) => format!("{}{IGNORED}", &line[..i]),
            None => template(&line).unwrap_or_else(|| line.clone()),
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, lines)) => lines.push(line),
            None => groups.push((key, vec![line])),
        }
    }
    let mut shown_any_cut = false;
    let mut out: Vec<String> = groups
        .into_iter()
        .map(|(key, lines)| {
            let (line, cut) = if key.ends_with(IGNORED) {
                ignored_line(&key, &lines)
            } else if lines.len() > 1 {
                named_line(&lines)
            } else {
                shortened(&lines[0])
            };
            shown_any_cut |= cut;
            line
        })
        .collect();
    if shown_any_cut {
        if let Some(last) = out.last_mut() {
            last.push_str(&format!(" (every note in full: {full})"));
        }
    }
    out
}

/// The first backticked name of `line` and the line with it replaced by a placeholder; `None` without one.
fn split_name(line: &str) -> Option<(String, String)> {
    let a = line.find('`')?;
    let b = a + 1 + line[a + 1..].find('`')?;
    Some((line[a..=b].to_string(), format!("{}\u{0}{}", &line[..a], &line[b + 1..])))
}

fn template(line: &str) -> Option<String> {
    split_name(line).map(|(_, t)| t)
}

/// Lines that differ only in their first name: one line naming the first few.
fn named_line(lines: &[String]) -> (String, bool) {
    let names: Vec<String> = lines.iter().filter_map(|l| split_name(l).map(|(n, _)| n)).collect();
    let Some((_, t)) = split_name(&lines[0]) else { return (lines[0].clone(), false) };
    let (list, cut) = if names.len() <= NAMED + 1 {
        let (last, first) = names.split_last().expect("a group has lines");
        (format!("{} and {last}", first.join(", ")), false)
    } else {
        (format!("{} and {} more", names[..NAMED].join(", "), names.len() - NAMED), true)
    };
    (t.replace('\u{0}', &list), cut)
}

/// Every "cannot use it" note of one file on one line: "… <camera> in <body> ×3, <geom> `condim` ×20, …".
fn ignored_line(key: &str, lines: &[String]) -> (String, bool) {
    let items: Vec<String> = lines
        .iter()
        .map(|l| {
            let what = &l[l.find(IGNORED).map_or(0, |i| i + IGNORED.len())..];
            match what.strip_suffix(" times)").and_then(|w| w.rsplit_once(" (")) {
                Some((w, n)) if n.parse::<usize>().is_ok() => format!("{w} ×{n}"),
                _ => what.to_string(),
            }
        })
        .collect();
    let mut line = key.to_string();
    let mut cut = false;
    for (k, item) in items.iter().enumerate() {
        if k > 0 && line.len() - key.len() + item.len() > IGNORED_LIST {
            line.push_str(&format!(" and {} more", items.len() - k));
            cut = true;
            break;
        }
        if k > 0 {
            line.push_str(", ");
        }
        line.push_str(item);
    }
    (line, cut)
}

/// A long comma-separated listing (e.g. joint indices): its first items, "…" and its last.
fn shortened(line: &str) -> (String, bool) {
    let items: Vec<&str> = line.split(", ").collect();
    if line.len() <= LONG || items.len() < NAMED + 3 {
        return (line.to_string(), false);
    }
    (format!("{}, …, {} ({} in all)", items[..NAMED].join(", "), items[items.len() - 1], items.len()), true)
}

#[cfg(test)]
mod tests {
    use super::display_lines;

    #[test]
    fn notes_about_names_and_ignored_parts_are_one_line_each() {
        let mut notes: Vec<String> = ["hip", "knee", "ankle", "toe"]
            .iter()
            .map(|j| format!("q.xml: joint `{j}`: armature 0.01 is a rotor inertia under `lcp`"))
            .collect();
        notes.push("q.xml: joint `hip`: armature 0.02 is a rotor inertia under `lcp`".into());
        notes.push("q.xml: ignored (cairn cannot use it): <camera> in <body> (3 times)".into());
        notes.push("q.xml: ignored (cairn cannot use it): <geom> attribute `condim` (20 times)".into());
        let listing: Vec<String> = (0..16).map(|k| format!("joint{k} = `j{k}` (hinge)")).collect();
        notes.push(format!("q.xml: {}", listing.join(", ")));
        let lines = display_lines("robots/q.xml", &notes, "summary.json");
        assert_eq!(
            lines,
            [
                "q.xml: joint `hip`, `knee` and 2 more: armature 0.01 is a rotor inertia under `lcp`",
                "q.xml: joint `hip`: armature 0.02 is a rotor inertia under `lcp`",
                "q.xml: ignored (cairn cannot use it): <camera> in <body> ×3, <geom> attribute `condim` ×20",
                "q.xml: joint0 = `j0` (hinge), joint1 = `j1` (hinge), …, joint15 = `j15` (hinge) (16 in all) \
                 (every note in full: summary.json)",
            ]
        );
    }

    #[test]
    fn a_scene_note_gets_the_scene_path_and_three_names_are_all_named() {
        let notes: Vec<String> = ["a", "b", "c"].iter().map(|b| format!("body `{b}` is tiny")).collect();
        assert_eq!(display_lines("scenes/s.toml", &notes, "x"), ["scenes/s.toml: body `a`, `b` and `c` is tiny"]);
        assert_eq!(display_lines("scenes/s.toml", &notes[..1], "x"), ["scenes/s.toml: body `a` is tiny"]);
    }
}
