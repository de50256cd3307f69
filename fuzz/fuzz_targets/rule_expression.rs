//! Rule expressions: checking never panics and every finding's range lies
//! on character boundaries inside the expression.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for finding in dqlint_sql::expr::check_expression(text) {
        let r = &finding.range;
        assert!(r.start <= r.end && r.end <= text.len(), "{:?} range {r:?} outside {text:?}", finding.kind);
        assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
    }
});
