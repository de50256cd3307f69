//! Quarantine pattern analysis: a clean dataset that drops rows failing
//! its rules, and a hand-made quarantine dataset reading the same upstream
//! whose filter should keep exactly the rows the clean one drops
//! (`NOT (r1 AND ... AND rn)`, seed 002).
//!
//! A quarantine dataset is recognised by its name (the configured
//! patterns) or because its filter is built from the clean dataset's rule
//! texts (its evaluated bytes come from the same source bytes). Its row
//! predicate is the conjunction of its row filters and its own drop
//! expectations; it is compared with the clean dataset's rules after
//! normalising both ([`crate::predicate`]). Nothing is decided when a text
//! is unknown or does not parse: other checks report those.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;

use crate::eval::Evaluated;
use crate::model::{Constraint, Dataset, ExpectAction, PipelineExpectation, Read};
use crate::predicate::{self, Normaliser, Predicate};
use crate::witness::{self, Row};

/// A dataset and the file it is declared in (an index the caller chose).
pub type InFile<'a, T> = (usize, &'a T);

/// A clean/quarantine pair reading one upstream.
#[derive(Debug)]
pub struct QuarantinePattern<'a> {
    pub clean: InFile<'a, Dataset>,
    pub quarantine: InFile<'a, Dataset>,
    /// The clean dataset's read of the shared upstream, and the quarantine's.
    pub clean_read: &'a Read,
    pub quarantine_read: &'a Read,
    /// How the quarantine predicate covers the clean rules; `None` when a
    /// text is unknown or does not parse.
    pub coverage: Option<Coverage<'a>>,
}

/// The quarantine predicate against the clean dataset's rules.
#[derive(Debug)]
pub struct Coverage<'a> {
    /// The quarantine predicate is `NOT (r1 AND ... AND rn)` over the drop
    /// rules (and the warn rules it also covers, which [`Self::covered_warn`]
    /// reports on their own).
    pub equivalent: bool,
    /// Drop rules whose failing rows the quarantine does not keep.
    pub uncovered: Vec<&'a PipelineExpectation>,
    /// Warn rules whose failing rows are quarantined although the clean
    /// dataset keeps them.
    pub covered_warn: Vec<&'a PipelineExpectation>,
    /// The quarantine keeps only rows failing every rule (a conjunction of
    /// negations, as `expect_all_or_drop({k: f"NOT ({v})"})` gives).
    pub only_rows_failing_all: bool,
    /// The quarantine also keeps rows that no clean rule rejects.
    pub extra_condition: bool,
    /// Drop rules that can be NULL on a row the quarantine does not keep
    /// either (no `col IS NULL` alternative for a nullable column).
    pub null_gaps: Vec<&'a PipelineExpectation>,
    /// `NOT (r1 AND ... AND rn)` over the drop rules, as SQL text.
    pub exact_negation: String,
    /// A row dropped from the clean table and not quarantined (failing
    /// the first of [`Self::uncovered`]); `None` when equivalent.
    pub in_neither: Option<Row>,
    /// A row kept by the clean table and quarantined too.
    pub in_both: Option<Row>,
}

/// Every quarantine pattern among `datasets` (all the pipeline's files).
/// `is_quarantine_name` says whether a dataset's name marks it as a
/// quarantine (the configured patterns).
pub fn patterns<'a>(
    datasets: &[InFile<'a, Dataset>],
    is_quarantine_name: impl Fn(&str) -> bool,
) -> Vec<QuarantinePattern<'a>> {
    // The datasets with drop rules, by the upstreams they read: a pair
    // shares one, so each quarantine looks only at its upstreams' readers.
    let mut readers: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, (_, d)) in datasets.iter().enumerate() {
        if has_drop_rule(d) {
            for read in &d.reads {
                let list = readers.entry(upstream_name(read)).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
    }
    let mut pairs = Vec::new();
    for &quarantine in datasets {
        let q = quarantine.1;
        if predicate_parts(q).is_empty() {
            continue;
        }
        let named = is_quarantine_name(&q.name.name);
        let mut near: Vec<usize> = q
            .reads
            .iter()
            .filter_map(|r| readers.get(&upstream_name(r)))
            .flatten()
            .copied()
            .collect();
        near.sort_unstable();
        near.dedup();
        let candidates: Vec<(InFile<'a, Dataset>, &'a Read, &'a Read)> = near
            .into_iter()
            .map(|i| datasets[i])
            .filter(|c| !std::ptr::eq(c.1, q))
            .filter_map(|clean| shared_read(clean.1, q).map(|(cr, qr)| (clean, cr, qr)))
            .collect();
        let by_rules: Vec<_> = candidates
            .iter()
            // Source bytes are comparable within one file only.
            .filter(|(clean, _, _)| clean.0 == quarantine.0 && uses_rule_texts(q, clean.1))
            .copied()
            .collect();
        let chosen = match (by_rules.len(), candidates.len(), named) {
            (1, _, _) => by_rules[0],
            // By name only: the quarantine must filter on a rule's column
            // (`_rescued_data IS NOT NULL` beside `encounter_id IS NOT
            // NULL` is another table, not this one's quarantine).
            (0, 1, true) if shares_a_column(q, candidates[0].0 .1) => candidates[0],
            // None, or ambiguous: no pattern is claimed.
            _ => continue,
        };
        pairs.push((chosen, quarantine));
    }
    // Normalising and comparing a pair's predicates is most of the work,
    // and each pair is its own: in parallel, in the order found, each
    // distinct predicate text normalised once.
    use rayon::prelude::*;
    let normaliser = Normaliser::default();
    let found: Vec<QuarantinePattern<'a>> = pairs
        .into_par_iter()
        .map(
            |((clean, clean_read, quarantine_read), quarantine)| QuarantinePattern {
                clean,
                quarantine,
                clean_read,
                quarantine_read,
                coverage: coverage(&normaliser, clean.1, quarantine.1),
            },
        )
        .collect();
    // Two datasets each the other's quarantine (both drop rows, each
    // built from the other's rule texts): the one named like a quarantine
    // is it; with no such name, neither is claimed.
    let pairs: HashSet<(*const Dataset, *const Dataset)> = found
        .iter()
        .map(|p| {
            (
                p.clean.1 as *const Dataset,
                p.quarantine.1 as *const Dataset,
            )
        })
        .collect();
    let mutual = |p: &QuarantinePattern| {
        pairs.contains(&(
            p.quarantine.1 as *const Dataset,
            p.clean.1 as *const Dataset,
        ))
    };
    let keep: Vec<bool> = found
        .iter()
        .map(|p| {
            !mutual(p)
                || (is_quarantine_name(&p.quarantine.1.name.name)
                    && !is_quarantine_name(&p.clean.1.name.name))
        })
        .collect();
    found
        .into_iter()
        .zip(keep)
        .filter_map(|(p, keep)| keep.then_some(p))
        .collect()
}

/// A quarantine pattern by position among the datasets it was found in,
/// so that it can be kept beside them (the linter finds the patterns once
/// per run for the six rules that read them); [`PatternAt::view`] gives
/// the pattern back.
#[derive(Debug, Clone)]
pub struct PatternAt {
    clean: usize,
    quarantine: usize,
    clean_read: usize,
    quarantine_read: usize,
    coverage: Option<CoverageAt>,
}

/// [`Coverage`] with expectations by their index in the clean dataset.
#[derive(Debug, Clone)]
struct CoverageAt {
    equivalent: bool,
    uncovered: Vec<usize>,
    covered_warn: Vec<usize>,
    only_rows_failing_all: bool,
    extra_condition: bool,
    null_gaps: Vec<usize>,
    exact_negation: String,
    in_neither: Option<Row>,
    in_both: Option<Row>,
}

/// [`patterns`], by position in `datasets`.
pub fn pattern_positions(
    datasets: &[InFile<'_, Dataset>],
    is_quarantine_name: impl Fn(&str) -> bool,
) -> Vec<PatternAt> {
    let index: HashMap<*const Dataset, usize> = datasets
        .iter()
        .enumerate()
        .map(|(i, d)| (d.1 as *const Dataset, i))
        .collect();
    let position = |d: &Dataset| index.get(&(d as *const Dataset)).copied();
    let within = |all: &[PipelineExpectation], some: &[&PipelineExpectation]| -> Vec<usize> {
        some.iter()
            .filter_map(|e| all.iter().position(|x| std::ptr::eq(x, *e)))
            .collect()
    };
    patterns(datasets, is_quarantine_name)
        .into_iter()
        .filter_map(|p| {
            let read_at = |d: &Dataset, r: &Read| d.reads.iter().position(|x| std::ptr::eq(x, r));
            let all = &p.clean.1.expectations;
            Some(PatternAt {
                clean: position(p.clean.1)?,
                quarantine: position(p.quarantine.1)?,
                clean_read: read_at(p.clean.1, p.clean_read)?,
                quarantine_read: read_at(p.quarantine.1, p.quarantine_read)?,
                coverage: p.coverage.map(|c| CoverageAt {
                    equivalent: c.equivalent,
                    uncovered: within(all, &c.uncovered),
                    covered_warn: within(all, &c.covered_warn),
                    only_rows_failing_all: c.only_rows_failing_all,
                    extra_condition: c.extra_condition,
                    null_gaps: within(all, &c.null_gaps),
                    exact_negation: c.exact_negation,
                    in_neither: c.in_neither,
                    in_both: c.in_both,
                }),
            })
        })
        .collect()
}

impl PatternAt {
    /// The pattern among the `datasets` [`pattern_positions`] was given.
    pub fn view<'a>(&self, datasets: &[InFile<'a, Dataset>]) -> Option<QuarantinePattern<'a>> {
        let clean = *datasets.get(self.clean)?;
        let quarantine = *datasets.get(self.quarantine)?;
        let all = &clean.1.expectations;
        let pick = |at: &[usize]| at.iter().filter_map(|&i| all.get(i)).collect();
        Some(QuarantinePattern {
            clean,
            quarantine,
            clean_read: clean.1.reads.get(self.clean_read)?,
            quarantine_read: quarantine.1.reads.get(self.quarantine_read)?,
            coverage: self.coverage.as_ref().map(|c| Coverage {
                equivalent: c.equivalent,
                uncovered: pick(&c.uncovered),
                covered_warn: pick(&c.covered_warn),
                only_rows_failing_all: c.only_rows_failing_all,
                extra_condition: c.extra_condition,
                null_gaps: pick(&c.null_gaps),
                exact_negation: c.exact_negation.clone(),
                in_neither: c.in_neither.clone(),
                in_both: c.in_both.clone(),
            }),
        })
    }
}

fn has_drop_rule(d: &Dataset) -> bool {
    d.expectations
        .iter()
        .any(|e| e.action == ExpectAction::Drop)
}

/// The texts whose conjunction keeps a row in the dataset: row filters,
/// then its own drop expectations.
fn predicate_parts(d: &Dataset) -> Vec<&Constraint> {
    d.row_filters
        .iter()
        .map(|f| &f.predicate)
        .chain(
            d.expectations
                .iter()
                .filter(|e| e.action == ExpectAction::Drop)
                .map(|e| &e.constraint),
        )
        .collect()
}

/// A dataset name as the pipeline resolves it: backticks and a `LIVE.`
/// prefix gone, lower case.
pub fn dataset_key(name: &str) -> String {
    let name = name.trim().replace('`', "").to_ascii_lowercase();
    name.strip_prefix("live.")
        .map(str::to_string)
        .unwrap_or(name)
}

fn upstream_name(read: &Read) -> String {
    dataset_key(&read.source.name)
}

fn shared_read<'a>(clean: &'a Dataset, q: &'a Dataset) -> Option<(&'a Read, &'a Read)> {
    clean.reads.iter().find_map(|cr| {
        let name = upstream_name(cr);
        q.reads
            .iter()
            .find(|qr| upstream_name(qr) == name)
            .map(|qr| (cr, qr))
    })
}

/// Whether a quarantine filter is built from the clean dataset's rule
/// texts: some evaluated byte of it comes from a source byte of a rule.
fn uses_rule_texts(q: &Dataset, clean: &Dataset) -> bool {
    let rule_bytes: BTreeSet<usize> = clean
        .expectations
        .iter()
        .filter_map(|e| known(&e.constraint))
        .flat_map(|t| t.origin.iter().flatten().copied())
        .collect();
    predicate_parts(q)
        .into_iter()
        .filter_map(known)
        .any(|t| t.origin.iter().flatten().any(|b| rule_bytes.contains(b)))
}

fn known(c: &Constraint) -> Option<&Evaluated> {
    match c {
        Constraint::Known(text) => Some(text),
        Constraint::Unknown { .. } => None,
    }
}

fn coverage<'a>(
    predicates: &Normaliser,
    clean: &'a Dataset,
    q: &'a Dataset,
) -> Option<Coverage<'a>> {
    let q_texts: Vec<&str> = predicate_parts(q)
        .into_iter()
        .map(|c| known(c).map(|t| t.text.as_str()))
        .collect::<Option<_>>()?;
    let q_sql = conjunction(&q_texts);
    let mut q_norm = predicates.normalise(&q_sql)?;
    // The clean dataset's own row filters (`.filter("topic = 'orders'")`)
    // bound both sides: within them the quarantine should be NOT (rules).
    // Its conjuncts equal to them are shared, not extra; when the clean
    // dataset filters on something the quarantine does not, nothing is
    // claimed.
    let clean_filters: Vec<&str> = clean
        .row_filters
        .iter()
        .map(|f| known(&f.predicate).map(|t| t.text.as_str()))
        .collect::<Option<_>>()?;
    if !clean_filters.is_empty() {
        let shared = conjuncts(&predicates.normalise(&conjunction(&clean_filters))?);
        let q_parts = conjuncts(&q_norm);
        if !shared.iter().all(|c| q_parts.contains(c)) {
            return None;
        }
        let mut rest: Vec<Predicate> = q_parts
            .into_iter()
            .filter(|c| !shared.contains(c))
            .collect();
        q_norm = match rest.len() {
            0 => return None,
            1 => rest.pop().expect("one conjunct"),
            _ => Predicate::And(rest),
        };
    }
    let q_disjuncts = disjuncts(&q_norm);

    let mut drop_rules = Vec::new();
    let mut warn_rules = Vec::new();
    for e in &clean.expectations {
        let text = known(&e.constraint)?.text.as_str();
        match e.action {
            ExpectAction::Drop => drop_rules.push((e, text)),
            ExpectAction::Warn => warn_rules.push((e, text)),
            ExpectAction::Fail => {}
        }
    }
    let negation_disjuncts = |rule: &str| -> Option<BTreeSet<Predicate>> {
        Some(disjuncts(&predicates.normalise(&format!("NOT ({rule})"))?))
    };
    let covers =
        |rule: &str| -> Option<bool> { Some(negation_disjuncts(rule)?.is_subset(&q_disjuncts)) };

    let mut uncovered = Vec::new();
    let mut null_gaps = Vec::new();
    // The nullable columns of each covered drop rule (parsed once: the
    // NULL guards below read them again).
    let mut covered_nullable: Vec<Vec<String>> = Vec::new();
    for &(e, text) in &drop_rules {
        if !covers(text)? {
            uncovered.push(e);
            continue;
        }
        let nullable = predicates.nullable_operands(text)?;
        let guarded_by_is_null = |operand: &String| {
            q_disjuncts.contains(&Predicate::IsNull {
                operand: operand.clone(),
                negated: false,
            })
        };
        if !nullable.iter().all(guarded_by_is_null) {
            null_gaps.push(e);
        }
        covered_nullable.push(nullable);
    }
    let mut covered_warn = Vec::new();
    for &(e, text) in &warn_rules {
        let same_as_drop = drop_rules
            .iter()
            .any(|(_, d)| predicates.equivalent(d, text) == Some(true));
        if !same_as_drop && covers(text)? {
            covered_warn.push(e);
        }
    }

    let expected_rules: Vec<&str> = drop_rules
        .iter()
        .map(|(_, t)| *t)
        .chain(
            warn_rules
                .iter()
                .filter(|(e, _)| covered_warn.iter().any(|w| std::ptr::eq(*w, *e)))
                .map(|(_, t)| *t),
        )
        .collect();
    let expected = predicates.normalise(&negation(&expected_rules))?;
    // `col IS NULL` for a nullable column of a covered rule is no extra
    // condition: it keeps the NULL rows the clean dataset drops too.
    let null_guards: BTreeSet<Predicate> = covered_nullable
        .into_iter()
        .flatten()
        .map(|operand| Predicate::IsNull {
            operand,
            negated: false,
        })
        .collect();
    let expected_disjuncts = disjuncts(&expected);
    let q_core: BTreeSet<Predicate> = q_disjuncts
        .iter()
        .filter(|d| expected_disjuncts.contains(d) || !null_guards.contains(d))
        .cloned()
        .collect();
    let mut equivalent = q_core == expected_disjuncts;
    let mut in_neither = None;
    let mut in_both = None;
    if !equivalent {
        // Different forms may keep the same rows (`a > 0 AND a > 1` and
        // `a > 1`): what is reported is a row the two tables disagree on,
        // within the clean dataset's row filters. A row on which a rule is
        // NULL is the null gap's (`Coverage::null_gaps`), not this.
        let filters = match clean_filters.as_slice() {
            [] => "true".to_string(),
            some => conjunction(some),
        };
        let mut semantically_uncovered = Vec::new();
        for &(e, text) in &drop_rules {
            let found = witness::find_row(&[&q_sql, text, &filters], |v| {
                v[2] == Some(true) && v[1] == Some(false) && v[0] != Some(true)
            });
            if let Some(row) = found {
                semantically_uncovered.push(e);
                in_neither.get_or_insert(row);
            }
        }
        in_both = witness::find_row(&[&q_sql, &conjunction(&expected_rules), &filters], |v| {
            v[2] == Some(true) && v[1] == Some(true) && v[0] == Some(true)
        });
        if in_neither.is_some() || in_both.is_some() {
            uncovered = semantically_uncovered;
        } else {
            // Forms the normaliser does not see into (`NOT coalesce(price
            // > 0, false)`) and no row told apart: nothing is claimed.
            let extra: Vec<&Predicate> = q_core.difference(&expected_disjuncts).collect();
            let missing: Vec<&Predicate> = expected_disjuncts.difference(&q_core).collect();
            let opaque = |ps: &[&Predicate]| ps.iter().any(|p| !predicate::is_transparent(p));
            if opaque(&extra) || opaque(&missing) {
                return None;
            }
            equivalent = true;
            uncovered.clear();
        }
    }

    let extra_condition = in_both.is_some();
    let only_rows_failing_all = drop_rules.len() > 1
        && matches!(&q_norm, Predicate::And(parts) if parts.len() > 1)
        && uncovered.len() == drop_rules.len();

    let drop_texts: Vec<&str> = drop_rules.iter().map(|(_, t)| *t).collect();
    Some(Coverage {
        equivalent,
        uncovered,
        covered_warn,
        only_rows_failing_all,
        extra_condition,
        null_gaps,
        exact_negation: within(&clean_filters, negation(&drop_texts)),
        in_neither,
        in_both,
    })
}

/// `f AND NOT (...)` within the clean dataset's row filters.
fn within(filters: &[&str], negation: String) -> String {
    let mut parts: Vec<String> = filters
        .iter()
        .map(|f| {
            if has_word(f, "or") {
                format!("({f})")
            } else {
                f.to_string()
            }
        })
        .collect();
    parts.push(negation);
    parts.join(" AND ")
}

fn conjuncts(p: &Predicate) -> Vec<Predicate> {
    match p {
        Predicate::And(parts) => parts.clone(),
        other => vec![other.clone()],
    }
}

/// The column names a predicate text mentions: words outside string
/// literals that are no keyword, number or function name.
pub(crate) fn columns(sql: &str) -> BTreeSet<String> {
    const KEYWORDS: [&str; 20] = [
        "and", "or", "not", "is", "null", "in", "between", "like", "ilike", "rlike", "true",
        "false", "case", "when", "then", "else", "end", "distinct", "from", "escape",
    ];
    let mut found = BTreeSet::new();
    let mut quote: Option<char> = None;
    let mut word = String::new();
    let mut flush = |word: &mut String, next: Option<char>| {
        let w = std::mem::take(word).to_ascii_lowercase();
        if !w.is_empty()
            && !w.starts_with(|c: char| c.is_ascii_digit())
            && !KEYWORDS.contains(&w.as_str())
            && next != Some('(')
        {
            found.insert(w);
        }
    };
    let chars: Vec<char> = sql.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        let next = chars[i..].iter().copied().find(|n| !n.is_whitespace());
        flush(&mut word, next);
        if c == '\'' || c == '"' {
            quote = Some(c);
        }
    }
    flush(&mut word, None);
    found
}

/// Whether the quarantine's predicate mentions a column of the clean
/// dataset's rules (a pair claimed by name only needs it).
fn shares_a_column(q: &Dataset, clean: &Dataset) -> bool {
    let rule_columns: BTreeSet<String> = clean
        .expectations
        .iter()
        .filter_map(|e| known(&e.constraint))
        .flat_map(|t| columns(&t.text))
        .collect();
    predicate_parts(q)
        .into_iter()
        .filter_map(known)
        .any(|t| !columns(&t.text).is_disjoint(&rule_columns))
}

/// `(a) AND (b)` of several texts; one text as it is.
fn conjunction(texts: &[&str]) -> String {
    match texts {
        [one] => one.to_string(),
        many => many
            .iter()
            .map(|t| format!("({t})"))
            .collect::<Vec<_>>()
            .join(" AND "),
    }
}

/// `NOT (r)` of one rule, `NOT (r1 AND r2)` of several (a rule holding an
/// `OR` in parentheses).
pub fn negation(rules: &[&str]) -> String {
    let parts: Vec<String> = rules
        .iter()
        .map(|r| {
            if rules.len() > 1 && has_word(r, "or") {
                format!("({r})")
            } else {
                r.to_string()
            }
        })
        .collect();
    format!("NOT ({})", parts.join(" AND "))
}

fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|w| w.eq_ignore_ascii_case(word))
}

fn disjuncts(p: &Predicate) -> BTreeSet<Predicate> {
    match p {
        Predicate::Or(parts) => parts.iter().cloned().collect(),
        other => BTreeSet::from([other.clone()]),
    }
}

/// The byte span in the file of a rule's text (its first to last mapped byte).
pub fn constraint_span(c: &Constraint) -> Option<Range<usize>> {
    match c {
        Constraint::Known(text) => text.source_span(0..text.text.len()),
        Constraint::Unknown { span, .. } => Some(span.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DatasetKind, Named, RowFilter};

    fn named(name: &str) -> Named {
        Named {
            name: name.into(),
            span: 0..0,
        }
    }

    fn text(s: &str, at: usize) -> Constraint {
        Constraint::Known(Evaluated::verbatim(s, at))
    }

    fn rule(name: &str, sql: &str, at: usize, action: ExpectAction) -> PipelineExpectation {
        PipelineExpectation {
            name: Some(named(name)),
            constraint: text(sql, at),
            action,
            origin: at..at + sql.len(),
            from_dict: None,
        }
    }

    fn dataset(name: &str, reads: &str) -> Dataset {
        Dataset {
            name: named(name),
            kind: DatasetKind::Table,
            span: 0..0,
            table_properties: vec![],
            reads: vec![Read {
                source: named(reads),
                streaming: true,
            }],
            row_filters: vec![],
            select_list: None,
            computed_columns: Vec::new(),
            grouping: None,
            expectations: vec![],
        }
    }

    fn with_filter(mut d: Dataset, sql: &str, at: usize) -> Dataset {
        d.row_filters.push(RowFilter {
            predicate: text(sql, at),
            span: at..at + sql.len(),
        });
        d
    }

    fn quarantine_name(name: &str) -> bool {
        name.contains("quarantine")
    }

    fn analyse(clean: &Dataset, q: &Dataset) -> Vec<(bool, usize, usize, usize)> {
        let all = [(0, clean), (0, q)];
        patterns(&all, quarantine_name)
            .iter()
            .map(|p| {
                let c = p.coverage.as_ref().expect("known texts");
                (
                    c.equivalent,
                    c.uncovered.len(),
                    c.covered_warn.len(),
                    c.null_gaps.len(),
                )
            })
            .collect()
    }

    #[test]
    fn seed_002_exact_negation_is_silent() {
        let mut clean = dataset("sales_clean", "raw_ingestion_view");
        clean.expectations.push(rule(
            "valid_price",
            "price IS NOT NULL AND price > 0",
            100,
            ExpectAction::Drop,
        ));
        // f"NOT ({RULES['valid_price']})": the rule's bytes inside.
        let mut filter = Evaluated::verbatim("NOT (", 500);
        let inner = Evaluated::verbatim("price IS NOT NULL AND price > 0", 100);
        filter.text.push_str(&inner.text);
        filter.origin.extend(inner.origin);
        filter.text.push(')');
        filter.origin.push(Some(540));
        let mut q = dataset("sales_quarantine", "raw_ingestion_view");
        q.row_filters.push(RowFilter {
            predicate: Constraint::Known(filter),
            span: 498..541,
        });
        assert_eq!(analyse(&clean, &q), vec![(true, 0, 0, 0)]);
    }

    #[test]
    fn one_rule_of_two_is_reported_with_the_uncovered_rule() {
        let mut clean = dataset("orders_clean", "orders_raw");
        clean
            .expectations
            .push(rule("valid_price", "price > 0", 10, ExpectAction::Drop));
        clean
            .expectations
            .push(rule("valid_qty", "qty >= 1", 40, ExpectAction::Drop));
        let q = with_filter(
            dataset("orders_quarantine", "orders_raw"),
            "NOT (price > 0)",
            200,
        );
        let all = [(0, &clean), (0, &q)];
        let found = patterns(&all, quarantine_name);
        let c = found[0].coverage.as_ref().unwrap();
        assert!(!c.equivalent);
        assert_eq!(c.uncovered.len(), 1);
        assert_eq!(c.uncovered[0].name.as_ref().unwrap().name, "valid_qty");
        assert_eq!(c.exact_negation, "NOT (price > 0 AND qty >= 1)");
        // price > 0 can be NULL and NOT (price > 0) does not keep it either.
        assert_eq!(c.null_gaps.len(), 1);
    }

    #[test]
    fn per_rule_negations_keep_only_rows_failing_all() {
        let mut clean = dataset("orders_clean", "orders_raw");
        clean.expectations.push(rule(
            "a",
            "price IS NOT NULL AND price > 0",
            10,
            ExpectAction::Drop,
        ));
        clean.expectations.push(rule(
            "b",
            "qty IS NOT NULL AND qty >= 1",
            60,
            ExpectAction::Drop,
        ));
        let mut q = dataset("orders_quarantine", "orders_raw");
        q.expectations.push(rule(
            "a",
            "NOT (price IS NOT NULL AND price > 0)",
            300,
            ExpectAction::Drop,
        ));
        q.expectations.push(rule(
            "b",
            "NOT (qty IS NOT NULL AND qty >= 1)",
            400,
            ExpectAction::Drop,
        ));
        let all = [(0, &clean), (0, &q)];
        let found = patterns(&all, quarantine_name);
        let c = found[0].coverage.as_ref().unwrap();
        assert!(!c.equivalent);
        assert!(c.only_rows_failing_all);
    }

    #[test]
    fn format_join_of_every_rule_is_silent_and_warn_rules_are_reported() {
        let mut clean = dataset("orders_clean", "orders_raw");
        clean.expectations.push(rule(
            "p",
            "price IS NOT NULL AND price > 0",
            10,
            ExpectAction::Drop,
        ));
        clean.expectations.push(rule(
            "q",
            "qty IS NOT NULL AND qty >= 1",
            60,
            ExpectAction::Drop,
        ));
        clean
            .expectations
            .push(rule("c", "country IS NOT NULL", 110, ExpectAction::Warn));
        let exact = with_filter(
            dataset("orders_quarantine", "orders_raw"),
            "NOT(price IS NOT NULL AND price > 0 AND qty IS NOT NULL AND qty >= 1)",
            300,
        );
        assert_eq!(analyse(&clean, &exact), vec![(true, 0, 0, 0)]);
        let with_warn = with_filter(
            dataset("orders_quarantine", "orders_raw"),
            "NOT(price IS NOT NULL AND price > 0 AND qty IS NOT NULL AND qty >= 1 AND country IS NOT NULL)",
            300,
        );
        assert_eq!(analyse(&clean, &with_warn), vec![(true, 0, 1, 0)]);
    }

    #[test]
    fn a_condition_on_one_side_only_is_not_equivalent() {
        let mut clean = dataset("orders_clean", "orders_raw");
        clean.expectations.push(rule(
            "p",
            "price IS NOT NULL AND price > 0",
            10,
            ExpectAction::Drop,
        ));
        let q = with_filter(
            dataset("orders_quarantine", "orders_raw"),
            "price IS NULL OR price <= 0 OR status = 'X'",
            300,
        );
        let all = [(0, &clean), (0, &q)];
        let c = patterns(&all, quarantine_name).remove(0).coverage.unwrap();
        assert!(!c.equivalent);
        assert!(c.extra_condition);
        assert!(c.uncovered.is_empty());
    }

    #[test]
    fn explicit_null_alternative_closes_the_gap() {
        let mut clean = dataset("orders_clean", "orders_raw");
        clean
            .expectations
            .push(rule("p", "price > 0", 10, ExpectAction::Drop));
        let q = with_filter(
            dataset("orders_quarantine", "orders_raw"),
            "price IS NULL OR price <= 0",
            300,
        );
        // Exactly the rows `price > 0` does not keep, NULL prices included.
        let all = [(0, &clean), (0, &q)];
        let c = patterns(&all, quarantine_name).remove(0).coverage.unwrap();
        assert!(c.null_gaps.is_empty());
        assert!(c.equivalent && !c.extra_condition);
    }

    #[test]
    fn different_upstreams_or_no_quarantine_marker_make_no_pattern() {
        let mut clean = dataset("orders_clean", "orders_raw");
        clean
            .expectations
            .push(rule("p", "price > 0", 10, ExpectAction::Drop));
        let elsewhere = with_filter(dataset("orders_quarantine", "other"), "price <= 0", 300);
        assert!(analyse(&clean, &elsewhere).is_empty());
        let unnamed = with_filter(dataset("orders_recent", "orders_raw"), "ts > now()", 300);
        assert!(analyse(&clean, &unnamed).is_empty());
    }
}
