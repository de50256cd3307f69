fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let f = dqlint_sql::ddl::parse_sql_file(&text);
    println!("{:#?}", f);
    for e in &f.errors { println!("ERR {:?} -> {:?}", e.message, &text[e.range.clone()]); }
}
