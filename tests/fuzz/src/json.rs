//! A JSON tree that keeps what the mutations need and `serde_json::Value` loses: the order of
//! keys, duplicate keys, each number's token as written, and each string's escapes (a lone
//! surrogate escape is no Rust string).

use std::fmt::Write as _;

/// A JSON value as written.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    /// A number token, as written (`1e2`, `-0`, `1e400`).
    Num(String),
    /// A string's text between its quotes, escapes as written.
    Str(String),
    Arr(Vec<J>),
    /// Entries in order, duplicates kept.
    Obj(Vec<(String, J)>),
}

impl J {
    /// Parses JSON text; `None` when it is not JSON this reader knows (then only bytes are
    /// mutated).
    pub fn parse(text: &str) -> Option<J> {
        let mut p = Parser {
            b: text.as_bytes(),
            at: 0,
            depth: 0,
        };
        let v = p.value()?;
        p.ws();
        (p.at == p.b.len()).then_some(v)
    }

    /// The JSON text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) => out.push_str(n),
            J::Str(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            J::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            J::Obj(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "\"{k}\":");
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// A string value holding `s`, escaped as JSON escapes it.
    pub fn string(s: &str) -> J {
        let quoted = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
        J::Str(quoted[1..quoted.len() - 1].to_owned())
    }

    /// How many values the tree holds (itself included).
    pub fn size(&self) -> usize {
        match self {
            J::Arr(items) => 1 + items.iter().map(J::size).sum::<usize>(),
            J::Obj(entries) => 1 + entries.iter().map(|(_, v)| v.size()).sum::<usize>(),
            _ => 1,
        }
    }

    /// The `n`th value in pre-order (0 is the root).
    pub fn nth_mut(&mut self, n: usize) -> Option<&mut J> {
        let mut left = n;
        self.walk_mut(&mut left)
    }

    fn walk_mut(&mut self, left: &mut usize) -> Option<&mut J> {
        if *left == 0 {
            return Some(self);
        }
        *left -= 1;
        match self {
            J::Arr(items) => items.iter_mut().find_map(|v| v.walk_mut(left)),
            J::Obj(entries) => entries.iter_mut().find_map(|(_, v)| v.walk_mut(left)),
            _ => None,
        }
    }

    /// Every key and string of the tree, for the dictionary.
    pub fn words(&self, keys: &mut Vec<String>, strings: &mut Vec<String>) {
        match self {
            J::Str(s) => strings.push(s.clone()),
            J::Arr(items) => items.iter().for_each(|v| v.words(keys, strings)),
            J::Obj(entries) => {
                for (k, v) in entries {
                    keys.push(k.clone());
                    v.words(keys, strings);
                }
            }
            _ => {}
        }
    }
}

struct Parser<'a> {
    b: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Option<J> {
        self.ws();
        self.depth += 1;
        if self.depth > 512 {
            return None;
        }
        let v = match *self.b.get(self.at)? {
            b'n' => self.word("null", J::Null),
            b't' => self.word("true", J::Bool(true)),
            b'f' => self.word("false", J::Bool(false)),
            b'"' => self.string().map(J::Str),
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.at) == Some(&b']') {
                    self.at += 1;
                } else {
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        match *self.b.get(self.at)? {
                            b',' => self.at += 1,
                            b']' => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Some(J::Arr(items))
            }
            b'{' => {
                self.at += 1;
                let mut entries = Vec::new();
                self.ws();
                if self.b.get(self.at) == Some(&b'}') {
                    self.at += 1;
                } else {
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.ws();
                        if self.b.get(self.at) != Some(&b':') {
                            return None;
                        }
                        self.at += 1;
                        let v = self.value()?;
                        entries.push((k, v));
                        self.ws();
                        match *self.b.get(self.at)? {
                            b',' => self.at += 1,
                            b'}' => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Some(J::Obj(entries))
            }
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                while matches!(
                    self.b.get(self.at),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.at += 1;
                }
                let token = std::str::from_utf8(&self.b[start..self.at]).ok()?;
                Some(J::Num(token.to_owned()))
            }
            _ => None,
        };
        self.depth -= 1;
        v
    }

    fn word(&mut self, w: &str, v: J) -> Option<J> {
        if self.b[self.at..].starts_with(w.as_bytes()) {
            self.at += w.len();
            Some(v)
        } else {
            None
        }
    }

    /// A string's text between its quotes, escapes kept.
    fn string(&mut self) -> Option<String> {
        if self.b.get(self.at) != Some(&b'"') {
            return None;
        }
        let start = self.at + 1;
        let mut i = start;
        loop {
            match *self.b.get(i)? {
                b'\\' => i += 2,
                b'"' => break,
                _ => i += 1,
            }
        }
        self.at = i + 1;
        std::str::from_utf8(&self.b[start..i])
            .ok()
            .map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_duplicates_tokens_and_escapes() {
        let text = r#"{"b":1e2,"a":[-0,"\ud800",{"b":null}],"b":true}"#;
        assert_eq!(J::parse(text).unwrap().text(), text);
        assert_eq!(J::parse("[1,]"), None);
    }
}
