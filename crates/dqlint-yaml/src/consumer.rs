//! What PyYAML's `safe_load` (the reader of LHP and DQX) refuses in a text
//! that parses as YAML: tags. The tree of [`crate::parse`] ignores tags, as
//! YAML allows; PyYAML constructs each tagged node with its tag's
//! constructor and fails on a tag it does not know (`!custom`,
//! `!!python/...`) or on a node of the wrong kind (`!!str {action: drop}`:
//! "expected a scalar node, but found mapping").
//!
//! The fix engine compares these problems before and after a fix: a fix
//! must not turn a file LHP loads into one it cannot.

use std::ops::Range;

use crate::SyntaxError;

/// The kind of node a YAML core tag constructs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NodeShape {
    Scalar,
    Sequence,
    Mapping,
}

/// The shape SafeLoader's constructor for `tag` accepts; `None` for a
/// tag it has no constructor for.
fn expected_shape(tag: &str) -> Option<NodeShape> {
    let name = if let Some(verbatim) = tag.strip_prefix("!<").and_then(|t| t.strip_suffix('>')) {
        verbatim.strip_prefix("tag:yaml.org,2002:")?
    } else if let Some(short) = tag.strip_prefix("!!") {
        short
    } else if tag == "!" {
        // The non-specific tag: the node is read as if untagged.
        return Some(NodeShape::Scalar);
    } else {
        return None;
    };
    match name {
        "null" | "bool" | "int" | "float" | "binary" | "timestamp" | "str" => {
            Some(NodeShape::Scalar)
        }
        "seq" | "omap" | "pairs" => Some(NodeShape::Sequence),
        "map" | "set" => Some(NodeShape::Mapping),
        _ => None,
    }
}

fn shape_of(kind: &str) -> Option<NodeShape> {
    match kind {
        "plain_scalar" | "single_quote_scalar" | "double_quote_scalar" | "block_scalar" => {
            Some(NodeShape::Scalar)
        }
        "block_sequence" | "flow_sequence" => Some(NodeShape::Sequence),
        "block_mapping" | "flow_mapping" => Some(NodeShape::Mapping),
        _ => None,
    }
}

/// The tags of `text` that PyYAML's `safe_load` would refuse, with where
/// they are. Syntax errors are [`crate::parse`]'s, not reported here.
pub fn pyyaml_rejections(text: &str) -> Vec<SyntaxError> {
    if !text.contains('!') {
        return Vec::new();
    }
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_yaml::LANGUAGE.into())
        .expect("tree-sitter-yaml is ABI-compatible with the linked runtime");
    let Some(tree) = parser.parse(text, None) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        if matches!(node.kind(), "block_node" | "flow_node") {
            if let Some(tag) = children.iter().find(|c| c.kind() == "tag") {
                let tag_text = &text[tag.byte_range()];
                // `!` alone on a collection keeps its kind too.
                let content = children.iter().find_map(|c| shape_of(c.kind()));
                let span: Range<usize> = tag.byte_range();
                match expected_shape(tag_text) {
                    None => out.push(SyntaxError {
                        span,
                        message: format!(
                            "YAML tag `{tag_text}`: PyYAML's safe loader (LHP's) has no constructor for it"
                        ),
                    }),
                    Some(expected) if tag_text != "!" => {
                        let found = content.unwrap_or(NodeShape::Scalar);
                        if found != expected {
                            out.push(SyntaxError {
                                span,
                                message: format!(
                                    "YAML tag `{tag_text}` on a {}: PyYAML expects a {}",
                                    shape_name(found),
                                    shape_name(expected)
                                ),
                            });
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        stack.extend(children);
    }
    out.sort_by_key(|e| e.span.start);
    out
}

fn shape_name(shape: NodeShape) -> &'static str {
    match shape {
        NodeShape::Scalar => "scalar",
        NodeShape::Sequence => "sequence",
        NodeShape::Mapping => "mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::pyyaml_rejections;

    fn messages(text: &str) -> Vec<String> {
        pyyaml_rejections(text)
            .into_iter()
            .map(|e| e.message)
            .collect()
    }

    #[test]
    fn core_tags_on_the_right_kind_are_fine() {
        assert!(messages("a: !!str drop\nb: !!int 3\nc: !!map {x: 1}\nd: !!seq [1]\n").is_empty());
        assert!(messages("a: ! drop\nb: !<tag:yaml.org,2002:str> x\n").is_empty());
        assert!(messages("a: drop\n").is_empty());
    }

    #[test]
    fn a_scalar_tag_on_a_mapping_is_refused() {
        let found = messages("price > 0: !!str {\"action\": \"drop\"}\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("`!!str` on a mapping"), "{found:?}");
        let block = messages("a: !!str\n  action: drop\n");
        assert_eq!(block.len(), 1, "{block:?}");
        assert_eq!(messages("a: !!map [1, 2]\n").len(), 1);
    }

    #[test]
    fn unknown_tags_are_refused() {
        assert_eq!(messages("a: !custom x\n").len(), 1);
        assert_eq!(messages("a: !!python/name:os.system x\n").len(), 1);
    }
}
