//! The DDL parser on arbitrary SQL: never panics, error spans stay inside
//! the text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let file = dqlint_sql::ddl::parse_sql_file(text);
    for error in &file.errors {
        let r = &error.range;
        assert!(r.start <= r.end && r.end <= text.len(), "error span {r:?} outside the text");
    }
});
