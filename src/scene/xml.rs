//! Reading the XML of URDF and MJCF files: every message names the file, the line and the element, and every
//! attribute and child element is either used, noted as ignored (`Notes`), or an error listing what is supported.

use roxmltree::{Document, Node};
use std::collections::BTreeMap;

/// What a loader accepted but cairn cannot use, counted per kind (one model note each).
#[derive(Debug, Default)]
pub struct Notes(BTreeMap<String, usize>);

impl Notes {
    /// Counts one occurrence of `what`.
    pub fn add(&mut self, what: impl Into<String>) {
        *self.0.entry(what.into()).or_insert(0) += 1;
    }

    /// The notes, one line per kind, with the count when more than one.
    pub fn lines(&self, file: &str) -> Vec<String> {
        self.0.iter().map(|(k, &n)| if n > 1 { format!("{file}: {k} ({n} times)") } else { format!("{file}: {k}") }).collect()
    }
}

/// A parsed XML file and its name, for messages.
#[derive(Clone, Copy)]
pub struct Src<'a> {
    pub file: &'a str,
    pub doc: &'a Document<'a>,
    /// Where the pieces of a text merged from several files came from (MJCF includes); empty: all of `file`.
    pub parts: &'a [Part],
}

/// A piece of a merged text: from byte `start` on (to the next piece), it is `file` from line `line`.
#[derive(Debug, Clone)]
pub struct Part {
    pub start: usize,
    pub file: String,
    pub line: u32,
}

/// Parses `text` as XML; the error names the file and the parser's position.
pub fn parse<'a>(file: &str, text: &'a str) -> Result<Document<'a>, String> {
    Document::parse(text).map_err(|e| format!("{file}: not well-formed XML: {e}"))
}

impl<'a> Src<'a> {
    /// The file and line (1-based) where `n` starts.
    pub fn place(&self, n: Node) -> (&str, u32) {
        let pos = n.range().start;
        let row = self.doc.text_pos_at(pos).row;
        match self.parts.iter().rev().find(|p| p.start <= pos) {
            None => (self.file, row),
            Some(p) => (&p.file, p.line + row - self.doc.text_pos_at(p.start).row),
        }
    }

    /// Line (1-based) where `n` starts, in the file it comes from.
    pub fn line(&self, n: Node) -> u32 {
        self.place(n).1
    }

    /// `file line L, <tag name="…">: msg`.
    pub fn at(&self, n: Node, msg: impl std::fmt::Display) -> String {
        let name = n.attribute("name").map(|s| format!(" name=\"{s}\"")).unwrap_or_default();
        let (file, line) = self.place(n);
        format!("{file} line {line}, <{}{name}>: {msg}", n.tag_name().name())
    }

    /// The numbers of attribute `key` (whitespace separated), or None when absent.
    pub fn nums(&self, n: Node, key: &str) -> Result<Option<Vec<f64>>, String> {
        let Some(raw) = n.attribute(key) else { return Ok(None) };
        self.parse_nums(n, key, raw).map(Some)
    }

    /// The numbers of `raw`, the value of attribute `key` of `n` (or of its default class).
    pub fn parse_nums(&self, n: Node, key: &str, raw: &str) -> Result<Vec<f64>, String> {
        let mut out = Vec::new();
        for w in raw.split_whitespace() {
            let x: f64 = w.parse().map_err(|_| self.at(n, format!("attribute `{key}`: `{w}` is not a number")))?;
            if !x.is_finite() {
                return Err(self.at(n, format!("attribute `{key}`: {x} is not a finite number")));
            }
            out.push(x);
        }
        Ok(out)
    }

    /// Exactly `count` numbers of `key`, or None when absent.
    pub fn fixed<const N: usize>(&self, n: Node, key: &str) -> Result<Option<[f64; N]>, String> {
        match self.nums(n, key)? {
            None => Ok(None),
            Some(v) => v.as_slice().try_into().map(Some).map_err(|_| {
                self.at(n, format!("attribute `{key}` needs {N} number(s), got {}: `{}`", v.len(), n.attribute(key).unwrap_or("")))
            }),
        }
    }

    /// One number of `key`, or None when absent.
    pub fn num(&self, n: Node, key: &str) -> Result<Option<f64>, String> {
        Ok(self.fixed::<1>(n, key)?.map(|[x]| x))
    }

    /// A required attribute's text.
    pub fn required<'b>(&self, n: Node<'b, 'b>, key: &str) -> Result<&'b str, String> {
        n.attribute(key).ok_or_else(|| self.at(n, format!("missing attribute `{key}`")))
    }

    /// Checks `n`'s attributes: those in `used` are read by the caller, those in `noted` are counted as ignored;
    /// any other is an error listing the supported ones.
    pub fn attrs(&self, n: Node, used: &[&str], noted: &[&str], notes: &mut Notes) -> Result<(), String> {
        for a in n.attributes() {
            let k = a.name();
            if used.contains(&k) {
                continue;
            }
            if noted.contains(&k) {
                notes.add(format!("ignored (cairn cannot use it): <{}> attribute `{k}`", n.tag_name().name()));
                continue;
            }
            return Err(self.at(n, format!("attribute `{k}` is not supported; supported here: {}", list(used.iter().chain(noted)))));
        }
        Ok(())
    }

    /// Child elements of `n`, each of which must be in `used` (the caller reads them) or `noted` (ignored with
    /// a note); any other is an error listing the supported ones.
    pub fn children<'b>(&self, n: Node<'b, 'b>, used: &[&str], noted: &[&str], notes: &mut Notes) -> Result<Vec<Node<'b, 'b>>, String> {
        let mut out = Vec::new();
        for c in n.children().filter(|c| c.is_element()) {
            let t = c.tag_name().name();
            if used.contains(&t) {
                out.push(c);
            } else if noted.contains(&t) {
                notes.add(format!("ignored (cairn cannot use it): <{t}> in <{}>", n.tag_name().name()));
            } else {
                let msg = format!(
                    "element <{t}> is not supported inside <{}>; supported: {}",
                    n.tag_name().name(),
                    list(used.iter().chain(noted).map(|s| format!("<{s}>")))
                );
                return Err(self.at(c, msg));
            }
        }
        Ok(out)
    }
}

impl Src<'_> {
    /// The element children of `n` among `used`; any other is noted and skipped (URDF, which ROS tools and
    /// PyBullet read leniently: extension tags such as `<gazebo>` or `<joint_properties>` are everywhere).
    pub fn children_noting<'b>(&self, n: Node<'b, 'b>, used: &[&str], notes: &mut Notes) -> Vec<Node<'b, 'b>> {
        let mut out = Vec::new();
        for c in n.children().filter(|c| c.is_element()) {
            let t = c.tag_name().name();
            if used.contains(&t) {
                out.push(c);
            } else {
                notes.add(format!("ignored (cairn cannot use it): <{t}> in <{}>", n.tag_name().name()));
            }
        }
        out
    }
}

/// Items as `` `a`, `b` `` (or "none").
pub fn list<T: std::fmt::Display>(it: impl Iterator<Item = T>) -> String {
    let v: Vec<String> = it.map(|s| format!("`{s}`")).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}
