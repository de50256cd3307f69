//! The token stream handed to sqlparser: Databricks spellings it does not
//! know rewritten in place (spans kept), and tokens described for messages.

use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::text;

pub(super) fn humanize_tokenizer_message(message: &str) -> String {
    let (m, _) = text::split_error_location(message);
    let mut m = m.trim().to_string();
    if let Some(first) = m.get(..1) {
        m = first.to_lowercase() + &m[1..];
    }
    m
}

pub(super) fn describe_token(token: &Token) -> String {
    match token {
        Token::EOF => "the end of the text".to_string(),
        other => format!("`{other}`"),
    }
}

pub(super) const SPARK_INTERVAL_UNITS: &[&str] = &[
    "YEAR",
    "YEARS",
    "MONTH",
    "MONTHS",
    "WEEK",
    "WEEKS",
    "DAY",
    "DAYS",
    "HOUR",
    "HOURS",
    "MINUTE",
    "MINUTES",
    "SECOND",
    "SECONDS",
    "MILLISECOND",
    "MILLISECONDS",
    "MICROSECOND",
    "MICROSECONDS",
];

/// Interval units sqlparser accepts after `INTERVAL <value>`.
pub(super) const SQLPARSER_INTERVAL_UNITS: &[&str] = &[
    "YEAR", "YEARS", "MONTH", "MONTHS", "WEEK", "WEEKS", "DAY", "DAYS", "HOUR", "HOURS", "MINUTE",
    "MINUTES", "SECOND", "SECONDS",
];

/// Words after which `DIV` cannot be the integer-division operator.
pub(super) const NOT_OPERAND_END: &[&str] = &[
    "AND", "OR", "NOT", "WHEN", "THEN", "ELSE", "CASE", "IN", "IS", "LIKE", "ILIKE", "RLIKE",
    "REGEXP", "BETWEEN", "SELECT", "WHERE",
];

pub(super) fn unquoted_word(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

pub(super) fn is_string_token(t: &Token) -> bool {
    matches!(
        t,
        Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)
    )
}

/// Rewrites the token stream where sqlparser does not know valid Databricks
/// syntax. Spans are kept, so positions stay exact:
///
/// * numeric literal suffixes (`100L`, `1.5D`, `10BD`, `2S`, `1Y`, `1F`): the
///   suffix word is dropped;
/// * raw string literals (`r'\d+'`): the `r` prefix is dropped;
/// * the integer division operator `a DIV b` becomes `a / b`;
/// * intervals: `INTERVAL '1 day'` (no unit) gets a unit, multi-unit
///   `INTERVAL 1 DAY 2 HOURS` keeps its first pair, and millisecond /
///   microsecond units become `SECOND`.
pub(super) fn fixup_tokens(text: &str, tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let ranges = text::token_ranges(text, &tokens);
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !text::is_trivia(&tokens[i].token))
        .collect();
    let mut skip = vec![false; tokens.len()];
    let mut replace: Vec<Option<Token>> = vec![None; tokens.len()];
    let mut insert_after: Vec<Option<TokenWithSpan>> = vec![None; tokens.len()];
    let tok = |k: usize| sig.get(k).map(|&i| &tokens[i].token);
    let is_unit = |k: usize| {
        tok(k)
            .and_then(unquoted_word)
            .is_some_and(|w| SPARK_INTERVAL_UNITS.contains(&w.as_str()))
    };
    // index in `sig` of the end of an interval value starting at k, if any
    let value_end = |k: usize| -> Option<usize> {
        let k = match tok(k)? {
            Token::Minus | Token::Plus => k + 1,
            _ => k,
        };
        match tok(k)? {
            Token::Number(..) => Some(k),
            t if is_string_token(t) => Some(k),
            _ => None,
        }
    };

    for k in 0..sig.len() {
        let i = sig[k];
        let t = &tokens[i].token;
        let word = unquoted_word(t);
        let prev = k.checked_sub(1).map(|p| sig[p]);
        let next = sig.get(k + 1).copied();
        match word.as_deref() {
            Some("L" | "S" | "Y" | "D" | "F" | "BD") => {
                if let Some(p) = prev {
                    if matches!(tokens[p].token, Token::Number(..))
                        && ranges[p].end == ranges[i].start
                    {
                        skip[i] = true;
                    }
                }
            }
            Some("R") => {
                if let Some(n) = next {
                    if is_string_token(&tokens[n].token) && ranges[i].end == ranges[n].start {
                        skip[i] = true;
                    }
                }
            }
            Some("DIV") => {
                let operand_before = prev.is_some_and(|p| match &tokens[p].token {
                    Token::Number(..) | Token::RParen | Token::RBracket => true,
                    Token::Word(w) => {
                        w.quote_style.is_some()
                            || !NOT_OPERAND_END.contains(&w.value.to_ascii_uppercase().as_str())
                    }
                    other => is_string_token(other),
                });
                let call = next.is_some_and(|n| tokens[n].token == Token::LParen);
                if operand_before && !call && next.is_some() {
                    replace[i] = Some(Token::Div);
                }
            }
            Some("EXISTS") => {
                // `NOT exists(arr, x -> ...)`: the higher-order function, not
                // an EXISTS subquery (sqlparser reads `NOT EXISTS (` as one)
                let Some(open) = next.filter(|&n| tokens[n].token == Token::LParen) else {
                    continue;
                };
                let inner = sig.get(k + 2).map(|&n| &tokens[n].token);
                let subquery = inner.and_then(unquoted_word).is_some_and(|w| {
                    matches!(w.as_str(), "SELECT" | "WITH" | "VALUES" | "FROM" | "TABLE")
                }) || matches!(inner, Some(Token::LParen));
                if !subquery && open > i {
                    if let Token::Word(w) = t {
                        replace[i] = Some(Token::Word(sqlparser::tokenizer::Word {
                            value: w.value.clone(),
                            quote_style: None,
                            keyword: sqlparser::keywords::Keyword::NoKeyword,
                        }));
                    }
                }
            }
            Some("INTERVAL") => {
                let Some(v_end) = value_end(k + 1) else {
                    continue;
                };
                if !is_unit(v_end + 1) {
                    if is_string_token(tok(v_end).unwrap_or(&Token::EOF)) {
                        // INTERVAL '1 day': give the parser a unit
                        let s = sig[v_end];
                        let end = tokens[s].span.end;
                        insert_after[s] = Some(TokenWithSpan::new(
                            Token::make_keyword("DAY"),
                            sqlparser::tokenizer::Span::new(end, end),
                        ));
                    }
                    continue;
                }
                let unit = sig[v_end + 1];
                if let Some(u) = unquoted_word(&tokens[unit].token) {
                    if !SQLPARSER_INTERVAL_UNITS.contains(&u.as_str()) {
                        replace[unit] = Some(Token::make_keyword("SECOND"));
                    }
                }
                // further `value unit` pairs
                let mut m = v_end + 2;
                while let Some(e) = value_end(m) {
                    if !is_unit(e + 1) {
                        break;
                    }
                    for &idx in &sig[m..=e + 1] {
                        skip[idx] = true;
                    }
                    m = e + 2;
                }
            }
            _ => {}
        }
        // Spark's shifts `<<`, `>>` and `>>>` (DBR 15.4+), which sqlparser's
        // Databricks dialect does not parse: read as another bitwise
        // operator (a number either way), `>>>`'s last `>` dropped.
        if matches!(t, Token::ShiftLeft | Token::ShiftRight) {
            replace[i] = Some(Token::Ampersand);
            if let Some(n) = next {
                if matches!(t, Token::ShiftRight)
                    && matches!(tokens[n].token, Token::Gt)
                    && ranges[n].start == ranges[i].end
                {
                    skip[n] = true;
                }
            }
        }
    }

    let mut out = Vec::with_capacity(tokens.len() + 1);
    for (i, mut t) in tokens.into_iter().enumerate() {
        if skip[i] {
            continue;
        }
        if let Some(r) = replace[i].take() {
            t.token = r;
        }
        out.push(t);
        if let Some(extra) = insert_after[i].take() {
            out.push(extra);
        }
    }
    out
}
