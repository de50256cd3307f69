//! `create_auto_cdc_flow(...)` and the legacy `apply_changes(...)` in a
//! Python pipeline source, read into [`AutoCdc`].
//!
//! Arguments by keyword, or by position in the API's order (`target`,
//! `source`, `keys`, `sequence_by`). A `source=` that is a string is a
//! dataset name; a DataFrame (an expression, or a name bound to one) is
//! kept as written with what it reads and selects, since the API takes a
//! name.

use tree_sitter::Node;

use crate::eval::Value;
use crate::model::{AutoCdc, CdcSource, Named};
use crate::python::KindName;
use crate::python_model::{Locals, Reader};

impl<'m> Reader<'m, '_> {
    pub(crate) fn auto_cdc(&mut self, call: Node<'m>, legacy: bool, locals: &Locals) {
        let args = self.args(call);
        let mut cdc = AutoCdc {
            span: call.byte_range(),
            target: args.get("target", 0).and_then(|t| self.named(t, locals)),
            source: None,
            keys: args
                .get("keys", 2)
                .and_then(|k| self.name_list(k, locals))
                .unwrap_or_default(),
            sequence_by: args.get("sequence_by", 3).map(|s| Named {
                name: self.sqlish(s, locals),
                span: s.byte_range(),
            }),
            stored_as_scd_type: args.keyword("stored_as_scd_type").map(|t| Named {
                name: match self.value(t, locals) {
                    Value::Str(s) => s.text,
                    Value::Int(i) => i.to_string(),
                    _ => self.text(t).to_string(),
                },
                span: t.byte_range(),
            }),
            column_list: self.list_argument(&args, "column_list", locals),
            except_column_list: self.list_argument(&args, "except_column_list", locals),
            track_history_column_list: self.list_argument(
                &args,
                "track_history_column_list",
                locals,
            ),
            track_history_except_column_list: self.list_argument(
                &args,
                "track_history_except_column_list",
                locals,
            ),
            source_reads: Vec::new(),
            source_select_list: None,
            source_computed_columns: Vec::new(),
            legacy,
        };
        if let Some(source) = args.get("source", 1) {
            if let Some(name) = self.named(source, locals) {
                cdc.source = Some(CdcSource::Name(name));
            } else if self.is_dataframe(source) {
                cdc.source = Some(CdcSource::NotAName {
                    span: source.byte_range(),
                    text: self.text(source).to_string(),
                });
                let facts = self.expression_frame(source, locals);
                cdc.source_reads = facts.reads;
                cdc.source_select_list = facts.select_list;
                cdc.source_computed_columns = facts.computed_columns;
            }
        }
        self.file.auto_cdc.push(cdc);
    }

    fn list_argument(
        &self,
        args: &crate::python_model::Args<'m>,
        name: &str,
        locals: &Locals,
    ) -> Option<Vec<Named>> {
        let node = args.keyword(name)?;
        if node.kind_name() == "none" {
            return None;
        }
        self.name_list(node, locals)
    }

    /// `["a", col("b")]` (or a name bound to a list of strings): the column
    /// names, as SQL-ish text.
    fn name_list(&self, node: Node<'m>, locals: &Locals) -> Option<Vec<Named>> {
        if matches!(node.kind_name(), "list" | "tuple") {
            let mut c = node.walk();
            let items: Vec<Node<'m>> = node
                .named_children(&mut c)
                .filter(|n| n.kind_name() != "comment")
                .collect();
            return Some(
                items
                    .into_iter()
                    .map(|item| {
                        self.named(item, locals).unwrap_or_else(|| Named {
                            name: self.sqlish(item, locals),
                            span: item.byte_range(),
                        })
                    })
                    .collect(),
            );
        }
        match self.value(node, locals) {
            Value::List(items) => items
                .into_iter()
                .map(|item| match item {
                    Value::Str(s) => Some(Named {
                        span: s
                            .source_span(0..s.text.len())
                            .unwrap_or_else(|| node.byte_range()),
                        name: s.text,
                    }),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// A `source=` that is a DataFrame rather than a name: a call, or a
    /// name bound to something other than a string.
    fn is_dataframe(&self, node: Node<'m>) -> bool {
        match node.kind_name() {
            "call" | "attribute" | "subscript" => true,
            "parenthesized_expression" => node.named_child(0).is_some_and(|n| self.is_dataframe(n)),
            "identifier" => {
                let local = self
                    .enclosing_functions(node)
                    .into_iter()
                    .find_map(|f| self.local_binding(f, node));
                let bound = local.or_else(|| {
                    self.module_bindings
                        .get(self.text(node))
                        .and_then(|b| b.last().map(|(_, rhs)| *rhs))
                });
                bound.is_some_and(|rhs| {
                    !matches!(
                        rhs.kind_name(),
                        "string" | "concatenated_string" | "identifier" | "binary_operator"
                    ) && matches!(
                        rhs.kind_name(),
                        "call" | "parenthesized_expression" | "attribute"
                    )
                })
            }
            _ => false,
        }
    }
}
