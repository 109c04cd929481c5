//! MJCF `<include file="…"/>`: the included file (a `<mujoco>` root) has its children put in place of the
//! element, as MuJoCo does, anywhere in the tree and nested. The text is spliced before parsing; a `Part` per
//! piece keeps, for messages, which file and line each byte of the merged text came from.

use crate::scene::xml::{parse, Part};
use std::path::Path;

/// How deep includes may nest (a file including itself is caught by this).
const MAX_DEPTH: usize = 8;

/// The text of `file` with every include expanded, and where each piece came from (empty when there is no
/// include). Included paths are relative to `dir`, the main file's folder, as in MuJoCo.
pub fn expand(text: &str, file: &str, dir: &Path) -> Result<(String, Vec<Part>), String> {
    if !text.contains("<include") {
        return Ok((text.to_string(), Vec::new()));
    }
    let mut out = String::new();
    let mut parts = Vec::new();
    splice(text, 0..text.len(), file, dir, 0, &mut out, &mut parts)?;
    Ok((out, parts))
}

/// Appends the bytes `keep` of `text` (the whole of `file`) to `out`, includes expanded.
fn splice(
    text: &str,
    keep: std::ops::Range<usize>,
    file: &str,
    dir: &Path,
    depth: usize,
    out: &mut String,
    parts: &mut Vec<Part>,
) -> Result<(), String> {
    let doc = parse(file, text)?;
    let line_of = |pos: usize| 1 + text[..pos].matches('\n').count() as u32;
    let mut copied = keep.start;
    let inside = |n: &roxmltree::Node| n.range().start >= keep.start && n.range().end <= keep.end;
    for n in doc.descendants().filter(|n| n.has_tag_name("include") && inside(n)) {
        let at = |msg: String| format!("{file} line {}, <include>: {msg}", line_of(n.range().start));
        if depth >= MAX_DEPTH {
            return Err(at(format!("includes nest deeper than {MAX_DEPTH} (a file that includes itself?)")));
        }
        if let Some(a) = n.attributes().find(|a| a.name() != "file") {
            return Err(at(format!("attribute `{}` is not supported; supported here: `file`", a.name())));
        }
        if n.children().any(|c| c.is_element()) {
            return Err(at("an <include> has no child elements".into()));
        }
        let name = n.attribute("file").ok_or_else(|| at("missing attribute `file`".into()))?;
        let path = dir.join(name);
        let inc = path.display().to_string();
        let inner = crate::scene::limits::read_text_capped(&path, crate::scene::limits::FileKind::Robot)
            .map_err(|e| at(format!("cannot read `{inc}`: {}", e.trim_start_matches("cannot read robot file: "))))?;
        let idoc = parse(&inc, &inner)?;
        let root = idoc.root_element();
        if !root.has_tag_name("mujoco") {
            return Err(format!("{inc}: an included file's root element must be <mujoco>"));
        }
        let kids: Vec<_> = root.children().filter(|c| c.is_element()).collect();
        push(out, parts, &text[copied..n.range().start], file, line_of(copied));
        if let (Some(first), Some(last)) = (kids.first(), kids.last()) {
            splice(&inner, first.range().start..last.range().end, &inc, dir, depth + 1, out, parts)?;
        }
        copied = n.range().end;
    }
    push(out, parts, &text[copied..keep.end], file, line_of(copied));
    Ok(())
}

/// Appends one piece of `file` that starts on line `line`.
fn push(out: &mut String, parts: &mut Vec<Part>, piece: &str, file: &str, line: u32) {
    if piece.is_empty() {
        return;
    }
    parts.push(Part { start: out.len(), file: file.to_string(), line });
    out.push_str(piece);
}
