//! Minimising a failing input: the smallest input found that still fails the same way, by
//! removing and simplifying parts of its JSON tree, then by deleting bytes.

use crate::json::J;

/// Every input one step simpler than `text`: an entry or item removed, a value replaced by a
/// simpler one, a string or number shortened; then, for text that is not JSON, chunks of
/// bytes deleted.
pub fn candidates(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(tree) = J::parse(text) {
        for n in 0..tree.size() {
            let mut edits: Vec<J> = Vec::new();
            let mut t = tree.clone();
            let Some(node) = t.nth_mut(n) else { continue };
            match node {
                J::Obj(entries) => {
                    for i in 0..entries.len() {
                        let mut e = entries.clone();
                        e.remove(i);
                        edits.push(J::Obj(e));
                    }
                    if let Some((_, v)) = entries.first() {
                        edits.push(v.clone());
                    }
                }
                J::Arr(items) => {
                    if items.len() > 1 {
                        edits.push(J::Arr(items[..items.len() / 2].to_vec()));
                        edits.push(J::Arr(items[1..].to_vec()));
                    }
                    for i in 0..items.len().min(8) {
                        let mut e = items.clone();
                        e.remove(i);
                        edits.push(J::Arr(e));
                    }
                    if let Some(v) = items.first() {
                        edits.push(v.clone());
                    }
                }
                J::Str(s) if !s.is_empty() => {
                    let mut half = s.len() / 2;
                    while !s.is_char_boundary(half) {
                        half -= 1;
                    }
                    edits.push(J::Str(s[..half].to_owned()));
                    edits.push(J::Str(String::new()));
                }
                J::Num(n) if n.len() > 1 => edits.push(J::Num("0".to_owned())),
                _ => {}
            }
            if n > 0 {
                edits.push(J::Null);
            }
            for e in edits {
                let mut t = tree.clone();
                if let Some(node) = t.nth_mut(n) {
                    *node = e;
                }
                out.push(t.text());
            }
        }
    } else {
        let b = text.as_bytes();
        let mut chunk = b.len() / 2;
        while chunk > 0 {
            let mut i = 0;
            while i + chunk <= b.len() {
                let mut c = b[..i].to_vec();
                c.extend_from_slice(&b[i + chunk..]);
                if let Ok(s) = String::from_utf8(c) {
                    out.push(s);
                }
                i += chunk;
            }
            chunk /= 2;
        }
    }
    out.retain(|c| c.len() < text.len() || (c.len() == text.len() && c != text));
    out.sort_by_key(String::len);
    out.dedup();
    out
}

/// The smallest input found from `text` for which `fails` still holds (`fails(text)` is
/// assumed), trying at most `budget` candidates.
pub fn minimise(text: &str, mut budget: usize, mut fails: impl FnMut(&str) -> bool) -> String {
    let mut best = text.to_owned();
    'outer: loop {
        for c in candidates(&best) {
            if budget == 0 {
                break 'outer;
            }
            budget -= 1;
            if fails(&c) {
                best = c;
                continue 'outer;
            }
        }
        break;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_the_failure_needs() {
        let text = r#"{"a":[1,2,3,{"b":"xyz"}],"c":{"d":true},"e":"needle"}"#;
        let small = minimise(text, 10_000, |t| t.contains("needle"));
        assert_eq!(small, r#""needle""#);
        let bytes = minimise("garbage{needle", 10_000, |t| t.contains("needle"));
        assert_eq!(bytes, "needle");
    }
}
