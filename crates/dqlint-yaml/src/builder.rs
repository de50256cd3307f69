//! The walk from tree-sitter-yaml's CST to the [`Document`] model:
//! scalars decoded, anchors and aliases expanded (within a budget), merge
//! keys applied, duplicate keys and comments collected.

use std::collections::HashMap;
use std::ops::Range;

use crate::document::{
    plain_kind, DuplicateKey, Node, NodeKind, Pair, Scalar, ScalarKind, SyntaxError,
};
use crate::scalar::{self, ScalarStyle};

/// Budget of nodes produced by alias expansion in one document (alias bombs).
const ALIAS_NODE_BUDGET: usize = 100_000;

/// What the walk of one document's tree found.
pub(crate) struct Built {
    pub root: Option<Node>,
    pub duplicate_keys: Vec<DuplicateKey>,
    /// Alias expansions refused (unknown anchor, over budget).
    pub errors: Vec<SyntaxError>,
}

/// Builds the document of the tree rooted at `root`, whose text is `text`
/// and starts at `base` in the file; comments are appended to `comments`.
pub(crate) fn build(
    text: &str,
    base: usize,
    root: tree_sitter::Node,
    comments: &mut Vec<Range<usize>>,
) -> Built {
    let mut builder = Builder {
        text,
        base,
        anchors: HashMap::new(),
        alias_budget: ALIAS_NODE_BUDGET,
        duplicate_keys: Vec::new(),
        errors: Vec::new(),
        comments,
    };
    let root = builder.document_root(root);
    Built {
        root,
        duplicate_keys: builder.duplicate_keys,
        errors: builder.errors,
    }
}

struct Builder<'a> {
    text: &'a str,
    base: usize,
    anchors: HashMap<String, Node>,
    alias_budget: usize,
    duplicate_keys: Vec<DuplicateKey>,
    errors: Vec<SyntaxError>,
    comments: &'a mut Vec<Range<usize>>,
}

impl Builder<'_> {
    fn span(&self, node: tree_sitter::Node) -> Range<usize> {
        self.base + node.start_byte()..self.base + node.end_byte()
    }

    fn document_root(&mut self, root: tree_sitter::Node) -> Option<Node> {
        let mut found = None;
        self.visit_content(root, &mut found);
        found
    }

    /// Walks stream/document/ERROR wrappers to the first content node;
    /// collects comments on the way.
    fn visit_content(&mut self, node: tree_sitter::Node, found: &mut Option<Node>) {
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        // An ERROR wrapper whose children are loose mapping pairs: rebuild
        // the mapping from what survived.
        if node.is_error() && children.iter().any(|c| c.kind() == "block_mapping_pair") {
            let pairs = self.mapping_pairs(&children);
            if found.is_none() {
                *found = Some(Node {
                    span: self.span(node),
                    kind: NodeKind::Mapping(pairs),
                });
            }
            self.collect_comments(node);
            return;
        }
        for child in children {
            match child.kind() {
                "comment" => self.comments.push(self.span(child)),
                "document" | "ERROR" | "stream" => self.visit_content(child, found),
                "block_node" | "flow_node" => {
                    if found.is_none() {
                        *found = self.node(child);
                    } else {
                        self.collect_comments(child);
                    }
                }
                _ => self.collect_comments(child),
            }
        }
    }

    fn collect_comments(&mut self, node: tree_sitter::Node) {
        if node.kind() == "comment" {
            self.comments.push(self.span(node));
            return;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.collect_comments(child);
        }
    }

    /// Converts a `block_node`/`flow_node` (or a bare content node).
    fn node(&mut self, node: tree_sitter::Node) -> Option<Node> {
        let mut anchor = None;
        let mut content = None;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "anchor" => {
                    anchor = child
                        .child_by_field_name("name")
                        .or_else(|| child.named_child(0))
                        .map(|n| self.text[n.byte_range()].to_string());
                }
                "tag" => {}
                "comment" => self.comments.push(self.span(child)),
                "alias" => {
                    let name = child
                        .named_child(0)
                        .map(|n| self.text[n.byte_range()].to_string())
                        .unwrap_or_default();
                    content = Some(self.alias(child, &name));
                }
                _ if child.is_named() && content.is_none() => content = self.content(child),
                _ => {}
            }
        }
        if node.kind() != "block_node" && node.kind() != "flow_node" && content.is_none() {
            content = self.content(node);
        }
        let content = content.unwrap_or(Node {
            span: self.span(node),
            kind: NodeKind::Null,
        });
        if let Some(name) = anchor {
            self.anchors.insert(name, content.clone());
        }
        Some(content)
    }

    fn alias(&mut self, at: tree_sitter::Node, name: &str) -> Node {
        let span = self.span(at);
        match self.anchors.get(name) {
            Some(target) => {
                let size = node_count(target);
                if size > self.alias_budget {
                    self.errors.push(SyntaxError {
                        span: span.clone(),
                        message: format!(
                            "alias `*{name}` expands past {ALIAS_NODE_BUDGET} nodes in this \
                             document (an alias bomb?); it was not expanded"
                        ),
                    });
                    return Node {
                        span,
                        kind: NodeKind::Null,
                    };
                }
                self.alias_budget -= size;
                // The alias reads as the anchored value, located at the alias.
                Node {
                    span,
                    kind: target.kind.clone(),
                }
            }
            None => {
                self.errors.push(SyntaxError {
                    span: span.clone(),
                    message: format!("YAML error: alias `*{name}` refers to no anchor before it"),
                });
                Node {
                    span,
                    kind: NodeKind::Null,
                }
            }
        }
    }

    fn content(&mut self, node: tree_sitter::Node) -> Option<Node> {
        let span = self.span(node);
        let kind = match node.kind() {
            "block_mapping" | "flow_mapping" => {
                let mut cursor = node.walk();
                let children: Vec<_> = node.children(&mut cursor).collect();
                NodeKind::Mapping(self.mapping_pairs(&children))
            }
            "block_sequence" | "flow_sequence" => {
                let mut items = Vec::new();
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    match child.kind() {
                        "block_sequence_item" => {
                            let mut c2 = child.walk();
                            let value = child
                                .named_children(&mut c2)
                                .find(|n| n.kind() != "comment")
                                .and_then(|n| self.node(n));
                            self.collect_item_comments(child);
                            items.push(value.unwrap_or(Node {
                                span: self.span(child).end..self.span(child).end,
                                kind: NodeKind::Null,
                            }));
                        }
                        "flow_node" => items.extend(self.node(child)),
                        "flow_pair" => {
                            // `[a: 1]` is a list holding a one-pair mapping.
                            let pairs = self.mapping_pairs(&[child]);
                            items.push(Node {
                                span: self.span(child),
                                kind: NodeKind::Mapping(pairs),
                            });
                        }
                        "comment" => self.comments.push(self.span(child)),
                        _ => {}
                    }
                }
                NodeKind::Sequence(items)
            }
            "plain_scalar" | "single_quote_scalar" | "double_quote_scalar" | "block_scalar" => {
                NodeKind::Scalar(self.scalar(node))
            }
            "block_node" | "flow_node" => return self.node(node),
            _ => return None,
        };
        Some(Node { span, kind })
    }

    fn collect_item_comments(&mut self, item: tree_sitter::Node) {
        let mut cursor = item.walk();
        for child in item.children(&mut cursor) {
            if child.kind() == "comment" {
                self.comments.push(self.span(child));
            }
        }
    }

    fn mapping_pairs(&mut self, children: &[tree_sitter::Node]) -> Vec<Pair> {
        let mut pairs: Vec<Pair> = Vec::new();
        let mut seen: HashMap<String, Range<usize>> = HashMap::new();
        for child in children {
            match child.kind() {
                "block_mapping_pair" | "flow_pair" => {
                    let key = child.child_by_field_name("key").and_then(|k| self.node(k));
                    let value = child
                        .child_by_field_name("value")
                        .and_then(|v| self.node(v));
                    let colon_end = {
                        let mut cursor = child.walk();
                        let colon = child.children(&mut cursor).find(|c| c.kind() == ":");
                        colon
                            .map(|c| self.base + c.end_byte())
                            .unwrap_or(self.span(*child).end)
                    };
                    let key = key.unwrap_or(Node {
                        span: self.span(*child).start..self.span(*child).start,
                        kind: NodeKind::Null,
                    });
                    let value = value.unwrap_or(Node {
                        span: colon_end..colon_end,
                        kind: NodeKind::Null,
                    });
                    self.collect_pair_comments(*child);
                    if key.as_str() == Some("<<") {
                        merge_into(&mut pairs, &value);
                        continue;
                    }
                    if let Some(name) = key.as_str() {
                        if let Some(first) = seen.get(name) {
                            self.duplicate_keys.push(DuplicateKey {
                                key: name.to_string(),
                                first: first.clone(),
                                second: key.span.clone(),
                            });
                        } else {
                            seen.insert(name.to_string(), key.span.clone());
                        }
                    }
                    pairs.push(Pair { key, value });
                }
                // `{a, b: 1}`: a flow entry without a value.
                "flow_node" => {
                    if let Some(key) = self.node(*child) {
                        let end = key.span.end;
                        pairs.push(Pair {
                            key,
                            value: Node {
                                span: end..end,
                                kind: NodeKind::Null,
                            },
                        });
                    }
                }
                "comment" => self.comments.push(self.span(*child)),
                "ERROR" => self.collect_comments(*child),
                _ => {}
            }
        }
        pairs
    }

    fn collect_pair_comments(&mut self, pair: tree_sitter::Node) {
        let mut cursor = pair.walk();
        for child in pair.children(&mut cursor) {
            if child.kind() == "comment" {
                self.comments.push(self.span(child));
            }
        }
    }

    fn scalar(&mut self, node: tree_sitter::Node) -> Scalar {
        let raw = &self.text[node.byte_range()];
        let line_start = self.text[..node.start_byte()]
            .rfind('\n')
            .map(|i| i + 1)
            .unwrap_or(0);
        let line = &self.text[line_start..node.start_byte()];
        let parent_indent = (line.len() - line.trim_start_matches(' ').len()) as u32;
        let (style, kind) = match node.kind() {
            "single_quote_scalar" => (ScalarStyle::SingleQuoted, ScalarKind::Str),
            "double_quote_scalar" => (ScalarStyle::DoubleQuoted, ScalarKind::Str),
            "block_scalar" => {
                let folded = raw.starts_with('>');
                (
                    if folded {
                        ScalarStyle::Folded
                    } else {
                        ScalarStyle::Literal
                    },
                    ScalarKind::Str,
                )
            }
            _ => (ScalarStyle::Plain, plain_kind(raw)),
        };
        let value = scalar::decode_value(raw, style, parent_indent as usize);
        Scalar {
            value,
            style,
            kind,
            parent_indent,
        }
    }
}

/// `<<: *base` merge keys: pairs of the merged mapping(s) that the mapping
/// does not already have.
fn merge_into(pairs: &mut Vec<Pair>, value: &Node) {
    let sources: Vec<&Node> = match &value.kind {
        NodeKind::Sequence(items) => items.iter().collect(),
        _ => vec![value],
    };
    for source in sources {
        if let Some(merged) = source.as_mapping() {
            for pair in merged {
                let present = pairs.iter().any(|p| p.key.as_str() == pair.key.as_str());
                if !present {
                    pairs.push(pair.clone());
                }
            }
        }
    }
}

fn node_count(node: &Node) -> usize {
    match &node.kind {
        NodeKind::Mapping(pairs) => {
            1 + pairs
                .iter()
                .map(|p| node_count(&p.key) + node_count(&p.value))
                .sum::<usize>()
        }
        NodeKind::Sequence(items) => 1 + items.iter().map(node_count).sum::<usize>(),
        _ => 1,
    }
}
