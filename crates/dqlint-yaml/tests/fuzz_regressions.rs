//! Inputs the fuzzer (`fuzz/`, target `yaml`) once broke, replayed on every
//! test run: spans must stay on character boundaries inside the text, and
//! the fast line reader must read what tree-sitter reads, and a `LiveYaml`
//! edited as the fuzzer edits it must equal a fresh parse.

mod edit_script;

use dqlint_yaml::{parse, Node, NodeKind};

fn check(text: &str, node: &Node) {
    assert!(
        node.span.end <= text.len(),
        "span {:?} outside the text",
        node.span
    );
    assert!(
        text.is_char_boundary(node.span.start) && text.is_char_boundary(node.span.end),
        "span {:?} splits a character",
        node.span
    );
    match &node.kind {
        NodeKind::Mapping(pairs) => pairs.iter().for_each(|p| {
            check(text, &p.key);
            check(text, &p.value);
        }),
        NodeKind::Sequence(items) => items.iter().for_each(|n| check(text, n)),
        _ => {}
    }
}

fn check_text(text: &str) {
    let file = parse(text);
    for document in &file.documents {
        if let Some(root) = &document.root {
            check(text, root);
        }
    }
    // The fast line reader agrees with tree-sitter (it once took `---x` for
    // a document end, read past a NUL, and skipped the depth guard).
    let reference = dqlint_yaml::tree::parse_tree_sitter_only(text);
    assert_eq!(file.errors, reference.errors);
    assert_eq!(file.comments, reference.comments);
    let roots = |f: &dqlint_yaml::YamlFile| {
        f.documents
            .iter()
            .map(|d| d.root.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(roots(&file), roots(&reference));
}

/// Blanking a broken line used to replace each character with one space,
/// shifting every later offset by the extra bytes of multi-byte characters.
#[test]
fn blanked_lines_keep_byte_offsets() {
    check_text("\"\u{400}\n\u{400}");
    let text = "a: \"é unterminated\nb: ok\n";
    let file = parse(text);
    let b = file.documents[0].root.as_ref().unwrap().get("b").unwrap();
    assert_eq!(&text[b.span.clone()], "ok");
}

#[test]
fn saved_fuzz_inputs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/yaml");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/regressions/yaml exists") {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        if let Ok(text) = std::str::from_utf8(&bytes) {
            check_text(text);
            edit_script::check_live_edits(&bytes, text);
            count += 1;
        }
    }
    assert!(count > 0, "no saved input in {}", dir.display());
}
