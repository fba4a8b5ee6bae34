//! Topic names: what Kafka accepts, and the name each change goes to.
//! A name the broker would refuse fails every message sent to it; a failed
//! delivery must never be covered by a checkpoint, so names are checked
//! before anything is produced.

use super::SinkError;

/// Kafka's limit on a topic name's length.
const MAX_TOPIC_LEN: usize = 249;

/// Why `name` is not a topic Kafka accepts, if it is not: 1 to 249 of
/// `A-Z a-z 0-9 . _ -`, and neither `.` nor `..`.
pub fn topic_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a topic name cannot be empty".into());
    }
    if name == "." || name == ".." {
        return Some(format!("`{name}` is not allowed as a topic name"));
    }
    if name.len() > MAX_TOPIC_LEN {
        return Some(format!(
            "a topic name has at most {MAX_TOPIC_LEN} characters, this one {}",
            name.len()
        ));
    }
    let bad: String = name.chars().filter(|c| !is_topic_char(*c)).collect();
    (!bad.is_empty())
        .then(|| format!("a topic name holds only letters, digits, `.`, `_` and `-`, not {bad:?}"))
}

fn is_topic_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

/// `PREFIX.SCHEMA.TABLE` with every character Kafka refuses replaced by
/// `_`, as Debezium names the topic of a table called `ORDERS#2` or
/// `COST$`; `None` when even that is no topic (too long).
pub fn derived_topic(prefix: &str, schema: &str, table: &str) -> Option<String> {
    let name: String = format!("{prefix}.{schema}.{table}")
        .chars()
        .map(|c| if is_topic_char(c) { c } else { '_' })
        .collect();
    topic_name_problem(&name).is_none().then_some(name)
}

/// Whether LogMiner could not name the table (`"UNKNOWN"."OBJ# n"`): its
/// dictionary lacks the object, so no topic can say whose changes these
/// are, and the object number may later belong to another table.
pub fn is_unnamed_table(schema: &str, table: &str) -> bool {
    schema == "UNKNOWN" || table.starts_with("OBJ# ")
}

/// The error that stops capture at a change whose table has no topic.
pub fn no_topic_for(schema: &str, table: &str, commit_scn: u64) -> SinkError {
    let route = format!("--route '{schema}.{table}=TOPIC'");
    let message = if is_unnamed_table(schema, table) {
        format!(
            "a change committed at SCN {commit_scn} is of \"{schema}\".\"{table}\", an object \
             LogMiner's dictionary cannot name (dropped, or created after the dictionary was \
             built), so it has no topic and capture stops before it. Rebuild the dictionary if \
             the object exists (for example, mine with the online catalog), or keep the change \
             under a topic you choose with {route}"
        )
    } else {
        format!(
            "no legal topic name can be made for table {schema}.{table} (commit SCN \
             {commit_scn}): name one with {route}"
        )
    };
    SinkError::Kafka { message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_kafka_refuses_are_named_with_the_reason() {
        assert_eq!(topic_name_problem("erp.APP.ORDERS"), None);
        assert_eq!(topic_name_problem("a-b_c.9"), None);
        assert!(topic_name_problem("bad topic#1").is_some_and(|p| p.contains("\" #\"")));
        assert!(topic_name_problem("").is_some());
        assert!(topic_name_problem("..").is_some());
        assert!(topic_name_problem(&"x".repeat(250)).is_some_and(|p| p.contains("249")));
        assert_eq!(topic_name_problem(&"x".repeat(249)), None);
    }

    #[test]
    fn derived_topic_replaces_what_oracle_names_allow_and_kafka_does_not() {
        assert_eq!(
            derived_topic("erp", "APP", "ORDERS#2").as_deref(),
            Some("erp.APP.ORDERS_2")
        );
        assert_eq!(
            derived_topic("erp", "APP", "COST$").as_deref(),
            Some("erp.APP.COST_")
        );
        assert_eq!(derived_topic("erp", "APP", &"T".repeat(250)), None);
    }

    #[test]
    fn unnamed_tables_stop_with_a_route_to_keep_their_changes() {
        assert!(is_unnamed_table("UNKNOWN", "OBJ# 74000"));
        assert!(!is_unnamed_table("APP", "ORDERS"));
        let e = no_topic_for("UNKNOWN", "OBJ# 74000", 42).to_string();
        assert!(e.contains("SCN 42") && e.contains("--route 'UNKNOWN.OBJ# 74000=TOPIC'"));
    }
}
