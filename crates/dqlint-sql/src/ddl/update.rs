//! `UPDATE ... WHERE`, and whether the condition pins the row's source
//! table (what scopes an update of a shared DLQ to one source).

use sqlparser::tokenizer::Token;

use super::statement::Stmt;
use super::UpdateStmt;

impl Stmt<'_> {
    pub(super) fn parse_update(&self) -> Option<UpdateStmt> {
        let (table, table_range, next) = self.object_name(1, "UPDATE").ok()?;
        // WHERE at parenthesis depth 0
        let mut depth = 0i32;
        let mut where_at = None;
        for k in next..self.sig.len() {
            match self.tok(k) {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ if depth == 0 && self.is_kw(k, "WHERE") => {
                    where_at = Some(k);
                    break;
                }
                _ => {}
            }
        }
        let pins = match where_at {
            Some(w) => {
                let idx: Vec<usize> = (w + 1..self.sig.len()).collect();
                self.pins_source_table(&idx)
            }
            None => false,
        };
        Some(UpdateStmt {
            table,
            table_range,
            statement_range: self.statement_range(),
            where_pins_source_table: pins,
        })
    }

    /// Strips parentheses that wrap the whole slice.
    fn strip_parens<'s>(&self, mut s: &'s [usize]) -> &'s [usize] {
        while s.len() >= 2
            && *self.tok(s[0]) == Token::LParen
            && self.matching_paren(s[0]) == Some(s[s.len() - 1])
        {
            s = &s[1..s.len() - 1];
        }
        s
    }

    /// Splits at top-level `AND` (not the AND of a `BETWEEN`).
    fn split_and<'s>(&self, s: &'s [usize]) -> Vec<&'s [usize]> {
        let mut parts = Vec::new();
        let mut depth = 0i32;
        let mut start = 0;
        let mut pending_between = 0;
        for (n, &k) in s.iter().enumerate() {
            match self.tok(k) {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ if depth == 0 && self.is_kw(k, "BETWEEN") => pending_between += 1,
                _ if depth == 0 && self.is_kw(k, "AND") => {
                    if pending_between > 0 {
                        pending_between -= 1;
                    } else {
                        parts.push(&s[start..n]);
                        start = n + 1;
                    }
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        parts
    }

    fn has_top_level_or(&self, s: &[usize]) -> bool {
        let mut depth = 0i32;
        s.iter().any(|&k| {
            match self.tok(k) {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ => {}
            }
            depth == 0 && self.is_kw(k, "OR")
        })
    }

    fn is_source_table_ref(&self, s: &[usize]) -> bool {
        let Some(&first) = s.first() else {
            return false;
        };
        match self.column_ref(first) {
            Some((name, last)) => {
                last == s[s.len() - 1]
                    && name
                        .rsplit('.')
                        .next()
                        .is_some_and(|n| n.eq_ignore_ascii_case("_dlq_source_table"))
            }
            None => false,
        }
    }

    fn pins_source_table(&self, s: &[usize]) -> bool {
        let s = self.strip_parens(s);
        let parts = self.split_and(s);
        if parts.len() > 1 {
            return parts.iter().any(|p| self.pins_source_table(p));
        }
        if self.has_top_level_or(s) {
            return false;
        }
        // col = x, x = col, col == x, col <=> x
        let mut depth = 0i32;
        for (n, &k) in s.iter().enumerate() {
            match self.tok(k) {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                Token::Eq | Token::DoubleEq | Token::Spaceship if depth == 0 => {
                    let (l, r) = (&s[..n], &s[n + 1..]);
                    return !l.is_empty()
                        && !r.is_empty()
                        && (self.is_source_table_ref(l) || self.is_source_table_ref(r));
                }
                _ if depth == 0 && self.is_kw(k, "IN") => {
                    let l = &s[..n];
                    let next_is_list = s.get(n + 1).is_some_and(|&j| *self.tok(j) == Token::LParen);
                    return self.is_source_table_ref(l) && next_is_list;
                }
                _ => {}
            }
        }
        false
    }
}
