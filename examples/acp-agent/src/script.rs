//! What a prompt asks for: the agent has no model, so the prompt's text is read as a script,
//! one step a line (the README's "What a prompt does"). Reading is pure: no IO, no session.

use contracts::acp::ContentBlock;

/// One step of a prompt turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `read PATH`, or a `file://` resource link: a tool call that asks permission, then reads
    /// the file through the client (`fs/read_text_file`).
    Read(String),
    /// `think TEXT`: a chunk of the agent's reasoning (`agent_thought_chunk`).
    Think(String),
    /// `wait`: waits for `session/cancel` (at most the agent's wait limit).
    Wait,
    /// Any other line: answered as a chunk of the agent's message (`agent_message_chunk`).
    Say(String),
    /// A resource link the agent cannot open (not `file://`): said so in the message.
    Unreadable {
        /// The link's name.
        name: String,
        /// The link's URI.
        uri: String,
    },
}

impl Step {
    /// The step as an entry of the turn's plan.
    pub fn describe(&self) -> String {
        match self {
            Step::Read(path) => format!("Read {path}"),
            Step::Think(text) => format!("Think: {text}"),
            Step::Wait => "Wait for session/cancel".to_owned(),
            Step::Say(text) => format!("Answer: {text}"),
            Step::Unreadable { uri, .. } => format!("Report {uri} as unreadable"),
        }
    }
}

/// Why a prompt cannot be read: a content block whose prompt capability the agent does not
/// announce (the client broke the contract).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The block's `type` (`image`, `audio`, `resource`).
    pub kind: &'static str,
    /// The block's place in the prompt, from 0.
    pub index: usize,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "prompt[{}] is an `{}` block; this agent announces no prompt capability for it \
             (only `text` and `resource_link`)",
            self.index, self.kind
        )
    }
}

impl std::error::Error for Unsupported {}

/// Reads a prompt's blocks into steps, in order: each non-blank line of a text block is a
/// step, and each resource link one.
pub fn read(prompt: &[ContentBlock]) -> Result<Vec<Step>, Unsupported> {
    let mut steps = Vec::new();
    for (index, block) in prompt.iter().enumerate() {
        match block {
            ContentBlock::Text(text) => steps.extend(text.text.lines().filter_map(read_line)),
            ContentBlock::ResourceLink(link) => {
                steps.push(match link.uri.strip_prefix("file://") {
                    Some(path) if path.starts_with('/') => Step::Read(path.to_owned()),
                    _ => Step::Unreadable {
                        name: link.name.clone(),
                        uri: link.uri.clone(),
                    },
                })
            }
            ContentBlock::Image(_) => {
                return Err(Unsupported {
                    kind: "image",
                    index,
                });
            }
            ContentBlock::Audio(_) => {
                return Err(Unsupported {
                    kind: "audio",
                    index,
                });
            }
            ContentBlock::Resource(_) => {
                return Err(Unsupported {
                    kind: "resource",
                    index,
                });
            }
        }
    }
    Ok(steps)
}

/// One line as a step; `None` for a blank line.
fn read_line(line: &str) -> Option<Step> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    Some(match (word, rest) {
        ("read", path) if !path.is_empty() => Step::Read(path.to_owned()),
        ("think", text) if !text.is_empty() => Step::Think(text.to_owned()),
        ("wait", "") => Step::Wait,
        _ => Step::Say(line.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::acp::{ImageContent, ResourceLink, TextContent};

    fn text(s: &str) -> ContentBlock {
        TextContent::new(s).into()
    }

    #[test]
    fn each_line_is_a_step() {
        let steps = read(&[text(
            "hello there\n\n  think  about it \nread /tmp/a b.txt\nwait\nwait now\nread\n",
        )])
        .unwrap();
        assert_eq!(
            steps,
            [
                Step::Say("hello there".into()),
                Step::Think("about it".into()),
                Step::Read("/tmp/a b.txt".into()),
                Step::Wait,
                Step::Say("wait now".into()),
                Step::Say("read".into()),
            ]
        );
        assert!(read(&[text(" \n\t")]).unwrap().is_empty());
    }

    #[test]
    fn resource_links_are_read_when_they_are_files() {
        let steps = read(&[
            ResourceLink::new("notes", "file:///home/dana/notes.md").into(),
            ResourceLink::new("site", "https://example.com/").into(),
            text("done"),
        ])
        .unwrap();
        assert_eq!(
            steps,
            [
                Step::Read("/home/dana/notes.md".into()),
                Step::Unreadable {
                    name: "site".into(),
                    uri: "https://example.com/".into()
                },
                Step::Say("done".into()),
            ]
        );
    }

    #[test]
    fn a_block_without_its_capability_is_refused() {
        let e = read(&[text("hi"), ImageContent::new("AAAA", "image/png").into()]).unwrap_err();
        assert_eq!(
            e,
            Unsupported {
                kind: "image",
                index: 1
            }
        );
        assert_eq!(
            e.to_string(),
            "prompt[1] is an `image` block; this agent announces no prompt capability for it \
             (only `text` and `resource_link`)"
        );
    }
}
