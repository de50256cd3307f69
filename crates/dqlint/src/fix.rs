//! The fix engine `--fix` and `--diff` use: dqlint-linter's `fix` module,
//! the one the language server's quick fixes and `source.fixAll` use too
//! (same conflict rule, same refusal of edits that break a file). Writing
//! the fixed files is `fix_write`.

pub use dqlint_linter::fix::*;
