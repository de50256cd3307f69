//! DQX's Python API in the editor, as [`super::dqx`] serves checks files:
//! in a module that imports DQX, hover on a check function
//! (`check_funcs.is_not_null`, or a name imported from a check-function
//! module), on an argument (a key of `check_func_kwargs={...}` or a
//! keyword of `check_func_kwargs=dict(...)`, a rule's `column` /
//! `columns`) and on `criticality`; completion of function names after
//! `check_funcs.`, of the arguments `check_func_kwargs` still misses, of
//! the values DQX knows for one (`True`/`False`, its enumerations) and of
//! `criticality` values. A rule is a `DQRowRule(...)`,
//! `DQDatasetRule(...)` or `DQForEachColRule(...)` call, its class and
//! check functions named through the module's imports as the pipeline
//! reader names them ([`DqxImports`]).
//!
//! The buffer is rarely valid Python while it is typed, so the cursor's
//! place is found with a tolerant scan (brackets, strings, words and
//! punctuation), not with the parse; the imports come from the parse,
//! which recovers around the line being typed.

use std::ops::Range;

use dqlint_dqx::{Catalogue, Function};
use dqlint_pipeline::dqx_api::DqxImports;
use dqlint_pipeline::PythonModule;

use super::dqx::{self as checks, Candidate, CandidateKind};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Open(u8),
    Close,
    /// A string literal; `span` is its text inside the quotes (up to the
    /// end of the line, or of the buffer, when it is not closed).
    Str {
        closed: bool,
    },
    /// A name or a dotted name (`check_funcs.is_null`), a number.
    Word,
    Punct(u8),
}

#[derive(Clone, Debug)]
struct Token {
    kind: Kind,
    /// Where it starts, its prefix and quotes included.
    start: usize,
    span: Range<usize>,
}

/// The tokens of a Python buffer and their brackets' pairs.
struct Scan<'t> {
    text: &'t str,
    tokens: Vec<Token>,
    /// For an opening bracket, the token that closes it, if any.
    close: Vec<Option<usize>>,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b >= 0x80
}

fn is_string_prefix(word: &str) -> bool {
    word.len() <= 2 && word.chars().all(|c| "rRbBfFuU".contains(c))
}

impl<'t> Scan<'t> {
    fn new(text: &'t str) -> Scan<'t> {
        let bytes = text.as_bytes();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_whitespace() || b == b'\\' {
                i += 1;
                continue;
            }
            if b == b'#' {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            let start = i;
            if is_word_byte(b) {
                while i < bytes.len() && is_word_byte(bytes[i]) {
                    i += 1;
                }
                let quoted = i < bytes.len() && matches!(bytes[i], b'"' | b'\'');
                if !(quoted && is_string_prefix(&text[start..i])) {
                    tokens.push(Token {
                        kind: Kind::Word,
                        start,
                        span: start..i,
                    });
                    continue;
                }
            }
            match bytes[i] {
                quote @ (b'"' | b'\'') => {
                    let triple = bytes[i..].starts_with(&[quote; 3]);
                    let open = if triple { 3 } else { 1 };
                    let body = i + open;
                    let mut j = body;
                    let mut closed = false;
                    while j < bytes.len() {
                        if bytes[j] == b'\\' {
                            j += 2;
                            continue;
                        }
                        if !triple && bytes[j] == b'\n' {
                            break;
                        }
                        if bytes[j] == quote && (!triple || bytes[j..].starts_with(&[quote; 3])) {
                            closed = true;
                            break;
                        }
                        j += 1;
                    }
                    let j = j.min(bytes.len());
                    tokens.push(Token {
                        kind: Kind::Str { closed },
                        start,
                        span: body.min(j)..j,
                    });
                    i = if closed { j + open } else { j };
                }
                open @ (b'(' | b'[' | b'{') => {
                    tokens.push(Token {
                        kind: Kind::Open(open),
                        start,
                        span: i..i + 1,
                    });
                    i += 1;
                }
                b')' | b']' | b'}' => {
                    tokens.push(Token {
                        kind: Kind::Close,
                        start,
                        span: i..i + 1,
                    });
                    i += 1;
                }
                other => {
                    // One byte of punctuation, or the whole of a character
                    // no token holds.
                    let len = text[i..].chars().next().map_or(1, char::len_utf8);
                    tokens.push(Token {
                        kind: Kind::Punct(other),
                        start,
                        span: i..i + len,
                    });
                    i += len;
                }
            }
        }
        let mut close = vec![None; tokens.len()];
        let mut stack = Vec::new();
        for (i, t) in tokens.iter().enumerate() {
            match t.kind {
                Kind::Open(_) => stack.push(i),
                Kind::Close => {
                    if let Some(open) = stack.pop() {
                        close[open] = Some(i);
                    }
                }
                _ => {}
            }
        }
        Scan {
            text,
            tokens,
            close,
        }
    }

    fn text_of(&self, i: usize) -> &'t str {
        &self.text[self.tokens[i].span.clone()]
    }

    fn is(&self, i: usize, kind: Kind) -> bool {
        self.tokens.get(i).is_some_and(|t| t.kind == kind)
    }

    fn is_word(&self, i: usize, word: &str) -> bool {
        self.is(i, Kind::Word) && self.text_of(i) == word
    }

    /// The brackets open at `offset`, outermost first.
    fn enclosing(&self, offset: usize) -> Vec<usize> {
        let mut stack = Vec::new();
        for (i, t) in self.tokens.iter().enumerate() {
            if t.start >= offset {
                break;
            }
            match t.kind {
                Kind::Open(_) => stack.push(i),
                Kind::Close => {
                    stack.pop();
                }
                _ => {}
            }
        }
        stack
    }

    /// The tokens directly inside the bracket `group`, item by item (a
    /// nested bracket is its opening token).
    fn items(&self, group: usize) -> Vec<Vec<usize>> {
        let end = self.close[group].unwrap_or(self.tokens.len());
        let mut items = vec![Vec::new()];
        let mut i = group + 1;
        while i < end {
            match self.tokens[i].kind {
                Kind::Punct(b',') => items.push(Vec::new()),
                Kind::Open(_) => {
                    items.last_mut().expect("one item at least").push(i);
                    match self.close[i] {
                        Some(close) => i = close,
                        None => break,
                    }
                }
                _ => items.last_mut().expect("one item at least").push(i),
            }
            i += 1;
        }
        items
    }

    /// `key = value` in a call, `"key": value` in a dict: the key's token.
    fn key_of(&self, item: &[usize]) -> Option<usize> {
        let (&key, &sep) = (item.first()?, item.get(1)?);
        let keyed = match self.tokens.get(sep)?.kind {
            Kind::Punct(b'=') => self.is(key, Kind::Word),
            Kind::Punct(b':') => matches!(self.tokens[key].kind, Kind::Str { .. }),
            _ => false,
        };
        keyed.then_some(key)
    }

    /// The value of the keyword or dict key `key` among `group`'s items:
    /// its single token.
    fn value_of(&self, group: usize, key: &str) -> Option<usize> {
        self.items(group).into_iter().find_map(|item| {
            let k = self.key_of(&item)?;
            (self.text_of(k) == key && item.len() == 3).then(|| item[2])
        })
    }

    /// The keys written in `group`, but the one of `except`'s item.
    fn keys(&self, group: usize, except: Option<usize>) -> Vec<&'t str> {
        self.items(group)
            .into_iter()
            .filter(|item| except.is_none_or(|e| !item.contains(&e)))
            .filter_map(|item| self.key_of(&item).map(|k| self.text_of(k)))
            .collect()
    }

    /// The string a token is, without its quotes.
    fn string(&self, i: usize) -> Option<&'t str> {
        matches!(self.tokens.get(i)?.kind, Kind::Str { .. }).then(|| self.text_of(i))
    }
}

/// A rule constructor call: the bracket of its arguments, and the check
/// function it names where the catalogue has it.
struct Rule<'c> {
    group: usize,
    class: &'c str,
    function: Option<&'c Function>,
}

/// The parts of the module the editor needs.
struct Module<'t> {
    scan: Scan<'t>,
    imports: DqxImports,
}

impl<'t> Module<'t> {
    fn read(text: &'t str) -> Option<Module<'t>> {
        let imports = DqxImports::of(&PythonModule::parse(text));
        imports.uses_dqx().then(|| Module {
            scan: Scan::new(text),
            imports,
        })
    }

    /// The rule whose arguments `group` holds.
    fn rule<'c>(&'c self, cat: &'c Catalogue, group: usize) -> Option<Rule<'c>> {
        let s = &self.scan;
        if !s.is(group, Kind::Open(b'(')) || group == 0 || !s.is(group - 1, Kind::Word) {
            return None;
        }
        let class = self.imports.class_of(s.text_of(group - 1))?;
        if !matches!(class, "DQRowRule" | "DQDatasetRule" | "DQForEachColRule") {
            return None;
        }
        let function = s
            .value_of(group, "check_func")
            .filter(|&v| s.is(v, Kind::Word))
            .and_then(|v| self.imports.check_function(s.text_of(v)))
            .and_then(|name| cat.any_function(name));
        Some(Rule {
            group,
            class,
            function,
        })
    }

    /// Whether `group` is the value of a rule's `check_func_kwargs`: a
    /// dict display, or a `dict(...)` call.
    fn is_kwargs(&self, group: usize, rule: &Rule) -> bool {
        let s = &self.scan;
        let keyword = match s.tokens[group].kind {
            Kind::Open(b'{') => group.checked_sub(2),
            Kind::Open(b'(') if group >= 1 && s.is_word(group - 1, "dict") => group.checked_sub(3),
            _ => None,
        };
        keyword.is_some_and(|k| {
            s.is_word(k, "check_func_kwargs")
                && s.is(k + 1, Kind::Punct(b'='))
                && s.items(rule.group)
                    .iter()
                    .any(|item| item.first() == Some(&k))
        })
    }

    /// The place of token `at` (the cursor's, or the one before it): the
    /// innermost rule or `check_func_kwargs` bracket holding it, and the
    /// token's item there.
    fn place<'c>(&'c self, cat: &'c Catalogue, offset: usize) -> Option<Place<'c>> {
        let s = &self.scan;
        let groups = s.enclosing(offset);
        let (&group, outer) = groups.split_last()?;
        let (rule, kwargs) = match self.rule(cat, group) {
            Some(rule) => (rule, false),
            None => {
                let rule = self.rule(cat, *outer.last()?)?;
                if !self.is_kwargs(group, &rule) {
                    return None;
                }
                (rule, true)
            }
        };
        // The item's tokens up to the cursor.
        let end = s.close[group].unwrap_or(s.tokens.len());
        let mut head = Vec::new();
        for item in s.items(group) {
            let before: Vec<usize> = item
                .into_iter()
                .filter(|&i| s.tokens[i].start < offset && i < end)
                .collect();
            if !before.is_empty() || head.is_empty() {
                head = before;
            }
        }
        // A comma after the last token read starts a new item.
        if let Some(&last) = head.last() {
            let after = s.close[last].unwrap_or(last) + 1;
            if (after..end).any(|i| s.tokens[i].start < offset && s.is(i, Kind::Punct(b','))) {
                head.clear();
            }
        }
        Some(Place {
            rule,
            group,
            kwargs,
            head,
        })
    }
}

struct Place<'c> {
    rule: Rule<'c>,
    /// The rule's arguments, or its `check_func_kwargs`.
    group: usize,
    kwargs: bool,
    /// The tokens of the cursor's item before it.
    head: Vec<usize>,
}

/// Hover in a DQX-API module's `text` at byte `offset`: the range it
/// applies to and its markdown.
pub fn hover(cat: &Catalogue, text: &str, offset: usize) -> Option<(Range<usize>, String)> {
    let module = Module::read(text)?;
    let s = &module.scan;
    let at = s.tokens.iter().position(|t| {
        t.start <= offset
            && match t.kind {
                Kind::Str { closed: true } => offset <= t.span.end + 1,
                _ => offset <= t.span.end,
            }
            && matches!(t.kind, Kind::Word | Kind::Str { .. })
    })?;
    let token = &s.tokens[at];
    let word = s.text_of(at);
    // A check function, wherever it is named.
    if token.kind == Kind::Word {
        if let Some(name) = module.imports.check_function(word) {
            let f = cat.any_function(name)?;
            let span = token.span.end - name.len()..token.span.end;
            return Some((span, checks::function_hover_of(cat, f)));
        }
    }
    let place = module.place(cat, token.span.end.max(token.start + 1))?;
    let item = &place.head;
    let is_key = item.first() == Some(&at) && s.key_of(&[at, at + 1]).is_some();
    let f = place.rule.function;
    match (place.kwargs, is_key) {
        (true, true) => Some((token.span.clone(), checks::param_hover(f?, word)?)),
        (false, true) => match word {
            "criticality" => {
                let value = s
                    .value_of(place.group, "criticality")
                    .and_then(|v| s.string(v))
                    .unwrap_or("");
                Some((token.span.clone(), checks::criticality_hover(value)))
            }
            "column" | "columns" if place.rule.class != "DQForEachColRule" => {
                Some((token.span.clone(), checks::param_hover(f?, word)?))
            }
            _ => None,
        },
        (false, false) => {
            let key = s.key_of(item)?;
            (s.text_of(key) == "criticality" && item.get(2) == Some(&at) && s.string(at).is_some())
                .then(|| (token.span.clone(), checks::criticality_hover(word)))
        }
        (true, false) => None,
    }
}

/// Completions in a DQX-API module's `text` at byte `offset`; with the
/// length of the word they replace.
pub fn completions(cat: &Catalogue, text: &str, offset: usize) -> (Vec<Candidate>, usize) {
    completions_at(cat, text, offset).unwrap_or_default()
}

fn completions_at(cat: &Catalogue, text: &str, offset: usize) -> Option<(Vec<Candidate>, usize)> {
    let module = Module::read(text)?;
    let s = &module.scan;
    // The token the cursor ends, if it is in one.
    let last = s.tokens.iter().rposition(|t| t.start < offset)?;
    let token = &s.tokens[last];
    let in_token = match token.kind {
        Kind::Word => offset <= token.span.end,
        Kind::Str { .. } => token.span.start <= offset && offset <= token.span.end,
        _ => false,
    };
    let partial = if in_token {
        text.get(token.span.start.min(offset)..offset)?
    } else {
        ""
    };
    let in_string = in_token && matches!(token.kind, Kind::Str { .. });
    // `check_funcs.is_` -> the check functions.
    if in_token && token.kind == Kind::Word {
        if let Some((object, name)) = partial.rsplit_once('.') {
            if !module.imports.is_funcs_module(object) {
                return None;
            }
            let out = checks::function_candidates(cat, name, str::to_string);
            return Some((out, name.len()));
        }
    }
    let place = module.place(cat, offset)?;
    let head = &place.head;
    // Where the cursor is in its item: the key, or the value of a key.
    let value_of = match head.as_slice() {
        [] => None,
        [only] if in_token && *only == last => None,
        [key, _, rest @ ..] if s.key_of(head).is_some() => match rest {
            [] if !in_token => Some(*key),
            [value] if in_token && *value == last => Some(*key),
            _ => return None,
        },
        _ => return None,
    };
    let quoted = |v: &str| {
        if in_string {
            v.to_string()
        } else {
            format!("\"{v}\"")
        }
    };
    let dict = s.is(place.group, Kind::Open(b'{'));
    let out = match value_of {
        None if place.kwargs => {
            // `dict(` takes names, not strings.
            if in_string && !dict {
                return None;
            }
            let f = place.rule.function?;
            let mut written = s.keys(place.group, head.first().copied());
            // `column` / `columns` given to the rule are the function's;
            // a `DQForEachColRule` gives one column at a time.
            if place.rule.class == "DQForEachColRule" {
                written.extend(["column", "columns"]);
            } else {
                written.extend(
                    s.keys(place.rule.group, None)
                        .into_iter()
                        .filter(|k| matches!(*k, "column" | "columns")),
                );
            }
            checks::param_candidates(f, &written, partial, |p| match (dict, in_string) {
                (true, true) => p.to_string(),
                (true, false) => format!("\"{p}\": "),
                (false, _) => format!("{p}="),
            })
        }
        None => return None,
        Some(key) => {
            let key = s.text_of(key);
            if place.kwargs {
                let f = place.rule.function?;
                python_values(f, key, partial, in_string, &quoted)
            } else if key == "criticality" && (in_string || !in_token) {
                checks::criticality_candidates(partial, quoted)
            } else {
                return None;
            }
        }
    };
    Some((out, partial.len()))
}

/// The values DQX knows for argument `param` of `f`, spelled in Python:
/// `True`/`False` for a `bool`, the strings of an enumeration.
fn python_values(
    f: &Function,
    param: &str,
    partial: &str,
    in_string: bool,
    quoted: &dyn Fn(&str) -> String,
) -> Vec<Candidate> {
    let Some((values, strings)) = checks::argument_values(f, param) else {
        return Vec::new();
    };
    if strings != in_string && !(strings && partial.is_empty()) {
        return Vec::new();
    }
    values
        .iter()
        .map(|v| match (strings, *v) {
            (false, "true") => "True",
            (false, "false") => "False",
            (_, v) => v,
        })
        .filter(|v| v.starts_with(partial))
        .map(|v| Candidate {
            label: v.to_string(),
            detail: Some(format!("{param} of {}", f.name)),
            doc: None,
            insert: if strings { quoted(v) } else { v.to_string() },
            kind: CandidateKind::Value,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"from databricks.labs.dqx.rule import DQRowRule, DQDatasetRule
from databricks.labs.dqx import check_funcs
from databricks.labs.dqx.check_funcs import is_unique

checks = [
    DQRowRule(criticality="warn", check_func=check_funcs.is_in_range, column="amount",
              check_func_kwargs={"min_limit": 0, }),
    DQDatasetRule(check_func=is_unique, columns=["id"], check_func_kwargs=dict(nulls_distinct=)),
]
"#;

    fn cat() -> &'static Catalogue {
        checks::catalogue()
    }

    fn labels(text: &str, marker: &str) -> (Vec<String>, usize) {
        let offset = text.find(marker).unwrap() + marker.len();
        let (out, replaced) = completions(cat(), text, offset);
        (out.into_iter().map(|c| c.label).collect(), replaced)
    }

    #[test]
    fn scans_strings_brackets_and_words() {
        let s = Scan::new("f(a='x\\'y', b=r\"\"\"z\"\"\") # (\n");
        let kinds: Vec<Kind> = s.tokens.iter().map(|t| t.kind).collect();
        assert_eq!(kinds.len(), 10, "{kinds:?}");
        assert_eq!(s.close[1], Some(9));
        assert_eq!(s.text_of(4), "x\\'y");
        assert_eq!(s.text_of(8), "z");
        assert_eq!(s.items(1).len(), 2);
    }

    #[test]
    fn hovers_functions_arguments_and_criticality() {
        let on = |marker: &str| {
            let offset = MODULE.find(marker).unwrap() + 1;
            hover(cat(), MODULE, offset).map(|(span, doc)| (&MODULE[span], doc))
        };
        let (word, doc) = on("is_in_range").unwrap();
        assert_eq!(word, "is_in_range");
        assert!(doc.contains("DQX row rule"), "{doc}");
        let (word, doc) = on("min_limit").unwrap();
        assert_eq!(word, "min_limit");
        assert!(doc.contains("a parameter of `is_in_range`"), "{doc}");
        let (_, doc) = on("criticality").unwrap();
        assert!(doc.contains("`warn` (this check)"), "{doc}");
        let (_, doc) = on("warn").unwrap();
        assert!(doc.contains("`warn` (this check)"), "{doc}");
        let (word, doc) = on("nulls_distinct").unwrap();
        assert_eq!(word, "nulls_distinct");
        assert!(doc.contains("a parameter of `is_unique`"), "{doc}");
        let (_, doc) = on("column=").unwrap();
        assert!(doc.contains("`column:"), "{doc}");
        let (word, _) = on("is_unique,").unwrap();
        assert_eq!(word, "is_unique");
        assert!(on("checks =").is_none());
    }

    #[test]
    fn completes_functions_arguments_and_values() {
        let (names, replaced) = labels(MODULE, "check_funcs.is_in");
        assert_eq!(replaced, 5);
        assert!(names.contains(&"is_in_range".to_string()), "{names:?}");
        let (names, _) = labels(MODULE, "\"min_limit\": 0, ");
        assert!(names.contains(&"max_limit".to_string()), "{names:?}");
        assert!(!names.contains(&"min_limit".to_string()), "{names:?}");
        assert!(!names.contains(&"column".to_string()), "{names:?}");
        let (names, _) = labels(MODULE, "nulls_distinct=");
        assert_eq!(names, ["True", "False"]);
        let (names, replaced) = labels(MODULE, "criticality=\"wa");
        assert_eq!((names, replaced), (vec!["warn".to_string()], 2));
        assert!(labels(MODULE, "checks = [").0.is_empty());
    }

    #[test]
    fn follows_aliased_imports_and_for_each_column_rules() {
        let text = r#"import databricks.labs.dqx.check_funcs as cf
from databricks.labs.dqx.rule import DQForEachColRule as Each, DQRowRule

rules = Each(columns=["a", "b"], check_func=cf.is_in_list, check_func_kwargs={"allowed": [1]}).get_rules()
row = DQRowRule(check_func=cf.is_valid_date, column="d", check_func_kwargs={})
"#;
        let offset = text.find("is_in_list").unwrap() + 2;
        let (span, doc) = hover(cat(), text, offset).unwrap();
        assert_eq!(&text[span], "is_in_list");
        assert!(doc.contains("DQX row rule"), "{doc}");
        let (names, _) = labels(text, "cf.is_in_");
        assert!(names.contains(&"is_in_list".to_string()), "{names:?}");
        // A `DQForEachColRule` gives the column: it is not offered.
        let (names, _) = labels(text, "{\"allowed\": [1]");
        assert!(names.is_empty(), "inside the list value: {names:?}");
        let at = text.find("\"allowed\": [1]").unwrap();
        let (names, _) = {
            let mut t = text.to_string();
            t.insert_str(at + "\"allowed\": [1]".len(), ", ");
            let offset = at + "\"allowed\": [1], ".len();
            let (out, replaced) = completions(cat(), &t, offset);
            (
                out.into_iter().map(|c| c.label).collect::<Vec<_>>(),
                replaced,
            )
        };
        assert!(!names.contains(&"column".to_string()), "{names:?}");
        assert!(!names.contains(&"allowed".to_string()), "{names:?}");
        // `column="d"` is given to the rule: the kwargs need no `column`.
        let (names, _) = labels(text, "column=\"d\", check_func_kwargs={");
        assert!(!names.contains(&"column".to_string()), "{names:?}");
        assert!(names.contains(&"date_format".to_string()), "{names:?}");
    }

    #[test]
    fn a_module_without_dqx_gets_nothing() {
        let text = "import os\ncheck_funcs.is_\nDQRowRule(criticality=\"\")\n";
        assert!(completions(cat(), text, 15).0.is_empty());
        assert!(hover(cat(), text, 14).is_none());
    }

    #[test]
    fn never_panics_on_partial_input() {
        for end in (0..=MODULE.len()).step_by(5) {
            if let Some(text) = MODULE.get(..end) {
                for offset in 0..=text.len() {
                    let _ = completions(cat(), text, offset);
                    let _ = hover(cat(), text, offset);
                }
            }
        }
    }
}
