fn main() {
    for line in std::io::stdin().lines() {
        let line = line.unwrap().replace("\\n", "\n");
        let f = dqlint_sql::expr::check_expression(&line);
        println!("{line:?}");
        for x in f { println!("   {} {:?} {:?} {:?}", x.code, x.range, &line[x.range.clone()], x.message); }
    }
}
