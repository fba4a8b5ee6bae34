//! "Did you mean": the close names to offer when an operator mistypes a
//! table, a scenario, a check id or an option.

/// Edit distance over characters, a swap of two neighbours counting as one
/// edit (`dmeo` is one edit from `demo`, two from `dm8`).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![(0..=b.len()).collect::<Vec<usize>>()];
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let prev = &rows[i];
            let mut d = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb {
                d = d.min(rows[i - 1][j - 1] + 1);
            }
            cur.push(d);
        }
        rows.push(cur);
    }
    rows[a.len()][b.len()]
}

/// Up to three candidates close to `wanted` (case-insensitive), closest
/// first; a candidate that contains `wanted` (or is contained in it) counts
/// as close however long it is.
pub fn close<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let w = wanted.to_uppercase();
    // Two edits cover a transposition (`fial` for `fail`); short names get one.
    let n = w.chars().count();
    let limit = if n < 4 { 1 } else { (n / 3).clamp(2, 3) };
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let u = c.to_uppercase();
            let d = distance(&w, &u);
            // `interval-churn` for `interval-partition-churn`: every word typed.
            let words = |x: &str| -> Vec<String> {
                x.split(['-', '_', '.', ' '])
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect()
            };
            let typed = words(&w);
            let all_words = typed.len() > 1 && typed.iter().all(|t| words(&u).contains(t));
            let contains = all_words || (w.len() >= 3 && (u.contains(&w) || w.contains(&u)));
            (d <= limit || contains).then_some((if contains { d.min(limit) } else { d }, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    // The closest only: `demo` for `dmeo`, not `dm8` one edit further.
    let best = scored.first().map_or(0, |(d, _)| *d);
    scored
        .into_iter()
        .take_while(|(d, _)| *d == best)
        .take(3)
        .map(|(_, c)| c)
        .collect()
}

/// `": did you mean A, B or C?"`, or nothing when nothing is close: the
/// end of a message `what went wrong (context)`, so the question closes it.
pub fn did_you_mean<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    question(&close(wanted, candidates))
}

/// `": did you mean A, B or C?"` for the names given, or nothing.
pub fn question(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => format!(": did you mean {one}?"),
        [rest @ .., last] => format!(": did you mean {} or {last}?", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_come_first_and_distant_ones_are_left_out() {
        let names = ["ORDERS", "ORDER_HIS", "DOCS", "CUSTOMERS"];
        assert_eq!(close("ORDRS", names), vec!["ORDERS"]);
        assert_eq!(close("orderz", names), vec!["ORDERS"]);
        assert!(close("INVOICES", names).is_empty());
        assert_eq!(close("fial", ["fail", "warn"]), vec!["fail"]);
        assert_eq!(
            close("interval-churn", ["demo", "interval-partition-churn"]),
            vec!["interval-partition-churn"]
        );
        assert_eq!(did_you_mean("DOC", names), ": did you mean DOCS?");
        assert_eq!(close("dmeo", ["demo", "dm8", "rac"]), vec!["demo"]);
        assert_eq!(close("dm9", ["demo", "dm8", "dm7"]), vec!["dm7", "dm8"]);
        assert_eq!(question(&["A", "B", "C"]), ": did you mean A, B or C?");
        assert_eq!(question(&[]), "");
    }
}
