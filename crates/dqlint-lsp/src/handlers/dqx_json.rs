//! Where the cursor is in a JSON checks file being typed: which object
//! (a check item, its `check` block, its `arguments`), whether a key or a
//! value is being written, and what the object already holds, before and
//! after the cursor. The buffer is rarely valid JSON while it is typed, so
//! this is a tolerant scan, not a parse: brackets, strings with their
//! escapes, `:` and `,`, and bare words.

/// One object of the file: its keys, the string values of its keys, and
/// where it sits (the object holding it and the key it is under; arrays in
/// between are looked through).
#[derive(Debug, Default)]
struct Object {
    keys: Vec<String>,
    strings: Vec<(String, String)>,
    parent: Option<(usize, String)>,
    /// Directly in the top-level array (a check item).
    top_item: bool,
}

/// What the cursor is writing.
#[derive(Debug, PartialEq)]
pub enum Writing {
    /// A key of the object (`{"crit|`, or `{ |` where a key goes).
    Key,
    /// The value of `key` (`"function": "is_|`, `"negate": t|`).
    Value { key: String },
}

/// The block of a check the object is.
#[derive(Debug, PartialEq, Clone, Copy)]
pub enum Block {
    Item,
    Check,
    /// `arguments`, with the check's `function` when written.
    Arguments,
}

/// The cursor's place, as the completion needs it.
#[derive(Debug)]
pub struct At {
    pub block: Block,
    pub writing: Writing,
    /// The word written so far (inside the quotes when `in_string`).
    pub partial: String,
    pub in_string: bool,
    /// The whole string or word the cursor is in (byte range of the text,
    /// inside the quotes), empty between tokens.
    pub token: std::ops::Range<usize>,
    /// The keys the object holds, the one being typed excepted.
    pub written: Vec<String>,
    /// The `function` of the check, for [`Block::Arguments`] and values in
    /// it.
    pub function: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Expect {
    Key,
    Value,
}

enum Frame {
    Object {
        id: usize,
        expect: Expect,
        key: Option<String>,
    },
    Array,
}

struct Cursor {
    object: Option<usize>,
    writing: Option<Writing>,
    partial: String,
    in_string: bool,
    /// The index, among its object's keys, of the key the cursor is in.
    key_index: Option<usize>,
    token: std::ops::Range<usize>,
}

/// The cursor's place at byte `offset` of `text`, when it is in a check
/// item, its `check` block or its `arguments`.
pub fn at(text: &str, offset: usize) -> Option<At> {
    let bytes = text.as_bytes();
    let mut objects: Vec<Object> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut cursor: Option<Cursor> = None;
    let mut i = 0;
    // Where the current object's expectation stands, for the cursor.
    let place = |stack: &[Frame]| -> (Option<usize>, Option<Writing>) {
        match stack.last() {
            Some(Frame::Object { id, expect, key }) => (
                Some(*id),
                Some(match expect {
                    Expect::Key => Writing::Key,
                    Expect::Value => Writing::Value {
                        key: key.clone().unwrap_or_default(),
                    },
                }),
            ),
            _ => (None, None),
        }
    };
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if cursor.is_none() && i >= offset {
            let (object, writing) = place(&stack);
            cursor = Some(Cursor {
                object,
                writing,
                partial: String::new(),
                in_string: false,
                key_index: None,
                token: i..i,
            });
        }
        match c {
            b'{' => {
                let id = objects.len();
                let mut object = Object::default();
                let mut holder = None;
                let mut through_array = false;
                for frame in stack.iter().rev() {
                    match frame {
                        Frame::Array => through_array = true,
                        Frame::Object { id, key, .. } => {
                            holder = Some((*id, key.clone().unwrap_or_default()));
                            break;
                        }
                    }
                }
                object.top_item = holder.is_none() && through_array && stack.len() == 1;
                object.parent = holder;
                objects.push(object);
                stack.push(Frame::Object {
                    id,
                    expect: Expect::Key,
                    key: None,
                });
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b'[' => {
                stack.push(Frame::Array);
                i += 1;
            }
            b':' => {
                if let Some(Frame::Object { expect, .. }) = stack.last_mut() {
                    *expect = Expect::Value;
                }
                i += 1;
            }
            b',' => {
                if let Some(Frame::Object { expect, key, .. }) = stack.last_mut() {
                    *expect = Expect::Key;
                    *key = None;
                }
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                let mut value = String::new();
                while j < bytes.len() && bytes[j] != b'"' && bytes[j] != b'\n' {
                    if bytes[j] == b'\\' && j + 1 < bytes.len() {
                        j += 2;
                        continue;
                    }
                    j += 1;
                }
                if let Some(raw) = text.get(start..j) {
                    value = raw.to_string();
                }
                if cursor.is_none() && start <= offset && offset <= j {
                    let (object, writing) = place(&stack);
                    let key_index = match (object, &writing) {
                        (Some(id), Some(Writing::Key)) => Some(objects[id].keys.len()),
                        _ => None,
                    };
                    cursor = Some(Cursor {
                        object,
                        writing,
                        partial: text.get(start..offset).unwrap_or("").to_string(),
                        in_string: true,
                        key_index,
                        token: start..j,
                    });
                }
                if let Some(Frame::Object { id, expect, key }) = stack.last_mut() {
                    match expect {
                        Expect::Key => {
                            objects[*id].keys.push(value.clone());
                            *key = Some(value);
                        }
                        Expect::Value => {
                            if let Some(k) = key.clone() {
                                objects[*id].strings.push((k, value));
                            }
                        }
                    }
                }
                i = if j < bytes.len() && bytes[j] == b'"' {
                    j + 1
                } else {
                    j
                };
            }
            _ => {
                // A bare word: a number, `true`, `null`, or a word being typed.
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !b"{}[]:,\"".contains(&bytes[i])
                {
                    i += 1;
                }
                if cursor.is_none() && start < offset && offset <= i {
                    let (object, writing) = place(&stack);
                    cursor = Some(Cursor {
                        object,
                        writing,
                        partial: text.get(start..offset).unwrap_or("").to_string(),
                        in_string: false,
                        key_index: None,
                        token: start..i,
                    });
                }
            }
        }
    }
    let cursor = cursor.or_else(|| {
        let (object, writing) = place(&stack);
        Some(Cursor {
            object,
            writing,
            partial: String::new(),
            in_string: false,
            key_index: None,
            token: offset..offset,
        })
    })?;
    let id = cursor.object?;
    let writing = cursor.writing?;
    let object = &objects[id];
    let parent_key = object.parent.as_ref().map(|(_, k)| k.as_str());
    let block = if object.top_item {
        Block::Item
    } else if parent_key == Some("check") {
        Block::Check
    } else if parent_key == Some("arguments") {
        let check = object.parent.as_ref().map(|(p, _)| *p)?;
        (objects[check].parent.as_ref().map(|(_, k)| k.as_str()) == Some("check"))
            .then_some(Block::Arguments)?
    } else {
        return None;
    };
    let check_block = match block {
        Block::Check => Some(id),
        Block::Arguments => object.parent.as_ref().map(|(p, _)| *p),
        Block::Item => None,
    };
    let function = check_block.and_then(|c| {
        objects[c]
            .strings
            .iter()
            .find(|(k, _)| k == "function")
            .map(|(_, v)| v.clone())
    });
    let mut written = object.keys.clone();
    // The key being typed is not written yet.
    if let Some(at) = cursor.key_index.filter(|&k| k < written.len()) {
        written.remove(at);
    }
    Some(At {
        block,
        writing,
        partial: cursor.partial,
        in_string: cursor.in_string,
        token: cursor.token,
        written,
        function,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(text: &str) -> At {
        let offset = text.find('|').unwrap();
        let text = text.replace('|', "");
        at(&text, offset).unwrap()
    }

    #[test]
    fn keys_and_values_in_each_block() {
        let a = place(r#"[{"check": {}, "criticality": "error", "ch|"#);
        assert_eq!(a.written, ["check", "criticality"]);
        let a = place(r#"[{"criticality": "error", "|"#);
        assert_eq!(
            (a.block, &a.writing, a.in_string),
            (Block::Item, &Writing::Key, true)
        );
        assert_eq!(a.written, ["criticality"]);

        let a = place(r#"[{"check": {"function": "is_n|"}}]"#);
        assert_eq!(a.block, Block::Check);
        assert_eq!(
            a.writing,
            Writing::Value {
                key: "function".into()
            }
        );
        assert_eq!(a.partial, "is_n");

        // The function is written after the arguments.
        let a =
            place(r#"[{"check": {"arguments": {"column": "a", |}, "function": "is_in_range"}}]"#);
        assert_eq!(
            (a.block, &a.writing, a.in_string),
            (Block::Arguments, &Writing::Key, false)
        );
        assert_eq!(a.function.as_deref(), Some("is_in_range"));
        assert_eq!(a.written, ["column"]);

        let a =
            place(r#"[{"check": {"function": "is_unique", "arguments": {"nulls_distinct": fa|"#);
        assert_eq!(
            a.writing,
            Writing::Value {
                key: "nulls_distinct".into()
            }
        );
        assert_eq!((a.partial.as_str(), a.in_string), ("fa", false));

        let a = place("[\n  {\n    \"criticality\": |\n");
        assert_eq!(
            a.writing,
            Writing::Value {
                key: "criticality".into()
            }
        );
        assert_eq!(a.block, Block::Item);
    }

    #[test]
    fn elsewhere_is_no_block() {
        let text = r#"[{"user_metadata": {"|"}}]"#;
        let offset = text.find('|').unwrap();
        assert!(at(&text.replace('|', ""), offset).is_none());
        assert!(at("|", 0).is_none());
        assert!(at(r#"{"run_configs": [{"|"#, 18).is_none());
    }
}
