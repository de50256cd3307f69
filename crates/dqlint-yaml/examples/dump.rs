fn dump(n: tree_sitter::Node, src: &str, depth: usize) {
    let field = "";
    let text = if n.child_count() == 0 {
        format!(" {:?}", &src[n.byte_range()])
    } else {
        String::new()
    };
    println!(
        "{}{}{}{} [{}..{}]{}{}",
        "  ".repeat(depth),
        field,
        n.kind(),
        if n.is_named() { "" } else { "(anon)" },
        n.start_byte(),
        n.end_byte(),
        if n.is_missing() { " MISSING" } else { "" },
        text
    );
    let mut c = n.walk();
    for ch in n.children(&mut c) {
        dump(ch, src, depth + 1);
    }
}
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_yaml::LANGUAGE.into()).unwrap();
    let t = p.parse(&src, None).unwrap();
    dump(t.root_node(), &src, 0);
}
