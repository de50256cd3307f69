//! The Python reader: parse with tree-sitter-python, report syntax errors
//! without hiding the rest of the file, and discover which pipeline API a
//! module uses (`import dlt`, `from pyspark import pipelines as dp`,
//! `from dlt import expect`, `databricks.labs.dqx`).

use std::collections::BTreeMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

use tree_sitter::{Node, Parser, Tree, TreeCursor};

/// A parsed Python module (a `.py` file or a notebook export).
pub struct PythonModule {
    pub source: String,
    pub tree: Tree,
}

/// A syntax error: tree-sitter recovers, so the rest of the module is still read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub span: Range<usize>,
    pub message: String,
}

/// What a module imports of the pipeline and DQX APIs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// Local names bound to the pipeline module: `dlt`, `dp`, ...
    pub pipeline_aliases: Vec<String>,
    /// `import dlt` (the legacy module) rather than `pyspark.pipelines`.
    pub legacy_dlt: bool,
    /// Names imported from the pipeline module: local name -> API name.
    pub imported_names: BTreeMap<String, String>,
    /// The module imports `databricks.labs.dqx`.
    pub dqx: bool,
    /// A Databricks notebook export (`# Databricks notebook source`).
    pub notebook: bool,
}

impl Discovery {
    /// A pipeline source: it imports the pipeline module or names from it.
    pub fn is_pipeline(&self) -> bool {
        !self.pipeline_aliases.is_empty() || !self.imported_names.is_empty()
    }

    /// The API name a callee refers to (`dp.expect_or_drop` -> `expect_or_drop`),
    /// or `None` when it is not the pipeline module's.
    pub fn api_name(&self, callee: &str) -> Option<String> {
        if let Some((object, attribute)) = callee.rsplit_once('.') {
            if self.pipeline_aliases.iter().any(|a| a == object) {
                return Some(attribute.to_string());
            }
            return None;
        }
        self.imported_names.get(callee).cloned()
    }
}

/// A child by field name, with the grammar's field ids looked up once:
/// tree-sitter's own `child_by_field_name` compares the name with every
/// field name of the grammar at each call, a twentieth of a read.
pub(crate) trait Field<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

/// Field ids by name, hashed with FNV-1a: a field name is a few letters,
/// for which SipHash's setup costs more than the look-up.
type FieldIds = std::collections::HashMap<&'static str, u16, BuildHasherDefault<Fnv>>;

#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0100_0000_01b3;
        let mut hash = if self.0 == 0 { OFFSET } else { self.0 };
        for &byte in bytes {
            hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
        }
        self.0 = hash;
    }
}

impl<'t> Field<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        static IDS: std::sync::OnceLock<FieldIds> = std::sync::OnceLock::new();
        let ids = IDS.get_or_init(|| {
            let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
            (1..=language.field_count() as u16)
                .filter_map(|id| Some((language.field_name_for_id(id)?, id)))
                .collect()
        });
        match ids.get(name) {
            Some(&id) => self.child_by_field_id(id),
            // Not a field of the grammar: what tree-sitter answers too.
            None => self.child_by_field_name(name),
        }
    }
}

/// Nodes with at most this many children are read by index.
const FEW_CHILDREN: usize = 12;

/// Appends `node`'s children (only the named ones when `named`) to `out`,
/// in source order. A tree cursor's step costs several hundred
/// instructions (it keeps fields, aliases and hidden nodes in view), while
/// reading the `i`-th child steps through the parent's child array from
/// its start: cheaper for the few children most nodes have, quadratic for
/// many (a module's or a block's statements), which take the cursor.
pub(crate) fn append_children<'t>(
    node: Node<'t>,
    named: bool,
    cursor: &mut TreeCursor<'t>,
    out: &mut Vec<Node<'t>>,
) {
    if !append_few_children(node, named, out) {
        append_children_with(node, named, cursor, out);
    }
}

/// `node`'s children (only the named ones when `named`), in source order,
/// as [`append_children`] reads them (a cursor made only for many).
pub(crate) fn children_of(node: Node, named: bool) -> Vec<Node> {
    let mut out = Vec::new();
    if !append_few_children(node, named, &mut out) {
        append_children_with(node, named, &mut node.walk(), &mut out);
    }
    out
}

/// Appends `node`'s children by index when it has at most
/// [`FEW_CHILDREN`]; `false` (and nothing appended) otherwise.
fn append_few_children<'t>(node: Node<'t>, named: bool, out: &mut Vec<Node<'t>>) -> bool {
    let count = if named {
        node.named_child_count()
    } else {
        node.child_count()
    };
    if count > FEW_CHILDREN {
        return false;
    }
    if named {
        out.extend((0..count).filter_map(|i| node.named_child(i)));
    } else {
        out.extend((0..count).filter_map(|i| node.child(i)));
    }
    true
}

fn append_children_with<'t>(
    node: Node<'t>,
    named: bool,
    cursor: &mut TreeCursor<'t>,
    out: &mut Vec<Node<'t>>,
) {
    if named {
        out.extend(node.named_children(cursor));
    } else {
        out.extend(node.children(cursor));
    }
}

/// A node's kind name from a table indexed by the grammar's kind id, read
/// once: tree-sitter's own `kind` finds the name through a C string and
/// checks it for UTF-8 at each call, and the reader's walks ask it of
/// every node.
pub(crate) trait KindName {
    fn kind_name(&self) -> &'static str;
}

impl KindName for Node<'_> {
    fn kind_name(&self) -> &'static str {
        static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
        let names = NAMES.get_or_init(|| {
            let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
            (0..language.node_kind_count() as u16)
                .map(|id| language.node_kind_for_id(id).unwrap_or_default())
                .collect()
        });
        match names.get(usize::from(self.kind_id())) {
            Some(name) => name,
            // `ERROR` has an id past the grammar's kinds.
            None => self.kind(),
        }
    }
}

fn is_pipeline_module(name: &str) -> bool {
    name == "dlt" || name == "pyspark.pipelines"
}

impl PythonModule {
    /// Parses a module. In a notebook export, IPython magic lines (`%pip
    /// install ...`, `!ls`), which Databricks runs before the cell's code,
    /// are blanked to spaces first, so they are no syntax error and every
    /// byte offset stays the file's.
    pub fn parse(source: impl Into<String>) -> PythonModule {
        thread_local! {
            // One parser per thread: making one costs about as much as
            // parsing a short module.
            static PARSER: std::cell::RefCell<Parser> = {
                let mut parser = Parser::new();
                parser
                    .set_language(&tree_sitter_python::LANGUAGE.into())
                    .expect("the tree-sitter-python grammar matches the tree-sitter library");
                std::cell::RefCell::new(parser)
            };
        }
        let source = mask_magics(source.into());
        let tree = PARSER.with_borrow_mut(|parser| {
            parser
                .parse(&source, None)
                .expect("parsing without a timeout or cancellation always yields a tree")
        });
        PythonModule { source, tree }
    }

    pub fn text(&self, node: Node) -> &str {
        &self.source[node.byte_range()]
    }

    /// Every ERROR and MISSING node, outermost only.
    pub fn syntax_errors(&self) -> Vec<SyntaxError> {
        let mut errors = Vec::new();
        collect_errors(self.tree.root_node(), &mut errors);
        errors
    }

    /// The `#` comments of the module, in source order (suppression
    /// directives live in them).
    pub fn comments(&self) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut cursor = self.tree.walk();
        let mut stack = vec![self.tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind_name() == "comment" {
                out.push(node.byte_range());
                continue;
            }
            for child in node.children(&mut cursor) {
                stack.push(child);
            }
        }
        out.sort_by_key(|r| r.start);
        out
    }

    pub fn discover(&self) -> Discovery {
        let mut found = Discovery {
            notebook: self.source.starts_with("# Databricks notebook source"),
            ..Discovery::default()
        };
        let root = self.tree.root_node();
        let mut cursor = root.walk();
        for statement in root.children(&mut cursor) {
            match statement.kind_name() {
                "import_statement" => {
                    let mut c = statement.walk();
                    for name in statement.children_by_field_name("name", &mut c) {
                        let (module, alias) = match name.kind_name() {
                            "aliased_import" => (
                                name.child_by_field_name("name").map(|n| self.text(n)),
                                name.child_by_field_name("alias").map(|n| self.text(n)),
                            ),
                            _ => (Some(self.text(name)), None),
                        };
                        let Some(module) = module else { continue };
                        if module.starts_with("databricks.labs.dqx") {
                            found.dqx = true;
                        }
                        if is_pipeline_module(module) {
                            found.legacy_dlt |= module == "dlt";
                            found
                                .pipeline_aliases
                                .push(alias.unwrap_or(module).to_string());
                        }
                    }
                }
                "import_from_statement" => {
                    let Some(module) = statement.child_by_field_name("module_name") else {
                        continue;
                    };
                    let module = self.text(module);
                    if module.starts_with("databricks.labs.dqx") {
                        found.dqx = true;
                    }
                    let mut c = statement.walk();
                    for name in statement.children_by_field_name("name", &mut c) {
                        let (api, local) = match name.kind_name() {
                            "aliased_import" => (
                                name.child_by_field_name("name").map(|n| self.text(n)),
                                name.child_by_field_name("alias").map(|n| self.text(n)),
                            ),
                            _ => (Some(self.text(name)), None),
                        };
                        let Some(api) = api else { continue };
                        let local = local.unwrap_or(api).to_string();
                        if module == "pyspark" && api == "pipelines" {
                            found.pipeline_aliases.push(local);
                        } else if is_pipeline_module(module) {
                            found.legacy_dlt |= module == "dlt";
                            found.imported_names.insert(local, api.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        found
    }
}

/// A notebook export with its magic lines blanked (same length).
fn mask_magics(source: String) -> String {
    if !source.starts_with("# Databricks notebook source") {
        return source;
    }
    let is_magic = |line: &str| {
        let code = line.trim_start_matches([' ', '\t']);
        code.starts_with('%') || code.starts_with('!')
    };
    if !source.lines().any(is_magic) {
        return source;
    }
    let mut out = String::with_capacity(source.len());
    for line in source.split_inclusive('\n') {
        if is_magic(line) {
            let body = line.trim_end_matches(['\n', '\r']);
            out.extend(std::iter::repeat_n(' ', body.len()));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

fn collect_errors(node: Node, errors: &mut Vec<SyntaxError>) {
    if node.is_error() {
        errors.push(SyntaxError {
            span: node.byte_range(),
            message: "invalid Python syntax".to_string(),
        });
        return;
    }
    if node.is_missing() {
        errors.push(SyntaxError {
            span: node.byte_range(),
            message: format!("missing `{}`", node.kind_name()),
        });
        return;
    }
    if !node.has_error() {
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_errors(child, errors);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_lines_of_a_notebook_export_are_no_syntax_errors() {
        let source = "# Databricks notebook source\n%pip install databricks-labs-dqx==0.17.0\n\n# COMMAND ----------\n\n  !ls /dbfs\nimport dlt\nx = 1\n";
        let module = PythonModule::parse(source);
        assert!(
            module.syntax_errors().is_empty(),
            "{:?}",
            module.syntax_errors()
        );
        assert_eq!(module.source.len(), source.len());
        assert_eq!(
            &module.source[source.find("import").unwrap()..][..10],
            "import dlt"
        );
        // Outside a notebook export `%pip` is invalid Python, as Python says.
        assert!(!PythonModule::parse("%pip install x\nimport dlt\n")
            .syntax_errors()
            .is_empty());
    }

    #[test]
    fn discovers_aliases_and_imported_names() {
        let module = PythonModule::parse(
            "# Databricks notebook source\nfrom pyspark import pipelines as dp\nimport dlt\nfrom dlt import expect as ex\n",
        );
        let found = module.discover();
        assert!(found.notebook && found.legacy_dlt && found.is_pipeline());
        assert_eq!(found.pipeline_aliases, ["dp", "dlt"]);
        assert_eq!(
            found.api_name("dp.expect_or_drop").as_deref(),
            Some("expect_or_drop")
        );
        assert_eq!(found.api_name("ex").as_deref(), Some("expect"));
        assert_eq!(found.api_name("spark.table"), None);
    }

    #[test]
    fn a_field_by_its_id_is_the_field_by_its_name() {
        let module = PythonModule::parse(
            "import dlt as d\n@d.table(name=f'{x!r:>3}')\ndef t(a, b=1):\n    for k, v in R.items():\n        y = {k: v}[k] if a else lambda q: q\n    return spark.read.table('x').filter(~F.col('a'))\n",
        );
        let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let names: Vec<&str> = (1..=language.field_count() as u16)
            .filter_map(|id| language.field_name_for_id(id))
            .chain(["no_such_field"])
            .collect();
        let mut stack = vec![module.tree.root_node()];
        let mut compared = 0;
        while let Some(node) = stack.pop() {
            for name in &names {
                assert_eq!(node.field(name), node.child_by_field_name(name), "{name}");
                compared += usize::from(node.field(name).is_some());
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        assert!(compared > 20, "{compared}");
    }

    #[test]
    fn a_kind_by_its_id_is_the_kind_by_its_name() {
        let module = PythonModule::parse(
            "import dlt as d\n@d.table(name=f'{x!r:>3}')\ndef t(a, *b, c: int = 1, **k):\n    for k, v in R.items():\n        y = {k: v}[k] if a else lambda q: q\n    class C: pass\n    return spark.read.table('x').filter(~F.col('a')) # c\nprint 1\ndef broken(:\n",
        );
        let mut stack = vec![module.tree.root_node()];
        let mut compared = 0;
        while let Some(node) = stack.pop() {
            assert_eq!(node.kind_name(), node.kind());
            compared += 1;
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        assert!(compared > 100, "{compared}");
    }

    #[test]
    fn plain_python_is_not_a_pipeline() {
        let module = PythonModule::parse("import os\nfrom pyspark.sql import functions as F\n");
        assert!(!module.discover().is_pipeline());
        let dqx = PythonModule::parse("from databricks.labs.dqx.rule import DQRowRule\n");
        assert!(dqx.discover().dqx);
    }

    #[test]
    fn a_syntax_error_keeps_the_rest_of_the_module() {
        let module =
            PythonModule::parse("import dlt\ndef broken(:\n    pass\nRULES = {'a': 'x > 0'}\n");
        assert!(!module.syntax_errors().is_empty());
        assert!(module.discover().is_pipeline());
        let eval = crate::Evaluator::new(&module);
        assert!(eval.lookup("RULES").is_some());
    }
}
