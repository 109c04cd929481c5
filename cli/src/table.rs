//! Text tables that fit a terminal: `WIDTH` columns unless `--wide`, the widest columns narrowed and their cells
//! wrapped at spaces onto continuation lines.

/// The width a table keeps to without `--wide`.
pub const WIDTH: usize = 120;

/// `text` in lines of at most `width` characters, broken at spaces where it can (a word longer than the width
/// is cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let have = line.chars().count();
            let gap = usize::from(have > 0);
            if have + gap + word.len() <= width {
                if gap == 1 {
                    line.push(' ');
                }
                line.extend(word.iter());
                break;
            }
            if have > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // a word wider than a line: cut it
            lines.push(word[..width].iter().collect());
            word.drain(..width);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The column widths that fit `total` (separators `sep` wide between columns): the natural widths, then the
/// widest column narrowed one character at a time while the table is too wide and it is wider than `floor`.
pub fn fit(natural: &[usize], sep: usize, total: usize, floor: usize) -> Vec<usize> {
    let mut w = natural.to_vec();
    let width = |w: &[usize]| w.iter().sum::<usize>() + sep * w.len().saturating_sub(1);
    while width(&w) > total {
        let (k, &widest) = w.iter().enumerate().max_by_key(|(k, &v)| (v, usize::MAX - k)).expect("a column");
        if widest <= floor {
            break;
        }
        w[k] -= 1;
    }
    w
}

/// Rows of cells as text lines under `widths`: each cell wrapped to its width, the row as many lines as its
/// tallest cell, cells padded and joined by " | ".
pub fn lines(cells: &[String], widths: &[usize]) -> Vec<String> {
    let wrapped: Vec<Vec<String>> = cells.iter().zip(widths).map(|(c, &w)| wrap(c, w)).collect();
    let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
    (0..height)
        .map(|i| {
            let parts: Vec<String> = wrapped
                .iter()
                .zip(widths)
                .map(|(c, &w)| {
                    let s = c.get(i).map_or("", String::as_str);
                    format!("{s}{}", " ".repeat(w.saturating_sub(s.chars().count())))
                })
                .collect();
            parts.join(" | ").trim_end().to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_cuts_long_words_and_fits_the_width() {
        assert_eq!(wrap("a bb ccc dddd", 6), vec!["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert_eq!(wrap("", 5), vec![""]);
        let w = fit(&[100, 40, 60, 10, 6], 3, 120, 8);
        assert!(w.iter().sum::<usize>() + 12 <= 120, "{w:?}");
        assert_eq!((w[3], w[4]), (10, 6), "narrow columns are left: {w:?}");
        let rows = lines(&["one two three".into(), "x".into()], &[7, 3]);
        assert_eq!(rows, vec!["one two | x", "three   |"]);
    }
}
