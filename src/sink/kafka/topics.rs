//! Table topics are created by the sink, before their first message, with
//! the partitions, replication and cleanup policy asked for, rather than
//! left to the broker's auto-creation (one partition, the broker's policy,
//! or a refusal seen only when the message times out 15 minutes later). A
//! topic that exists is used as it is. A topic the broker refuses to create
//! stops capture at once, naming it and the command that creates it.

use std::collections::HashMap;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::RDKafkaErrorCode;

use super::{offsets, KafkaConfig, SinkError, CALL_TIMEOUT};

/// How the topics of tables are cleaned up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cleanup {
    /// `compact` for a table with a primary key when tombstones are on
    /// (a compacted topic keeps each key's last row), else `delete`.
    #[default]
    Auto,
    Compact,
    Delete,
}

/// What table topics are created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicSettings {
    pub partitions: i32,
    /// `None`: the broker's `default.replication.factor`.
    pub replication: Option<i32>,
    pub cleanup: Cleanup,
}

impl Default for TopicSettings {
    fn default() -> Self {
        Self {
            partitions: 1,
            replication: None,
            cleanup: Cleanup::Auto,
        }
    }
}

impl TopicSettings {
    /// Whether the topic of a table is compacted. Never for a table
    /// without a key: a compacted topic refuses records without one.
    pub fn compacted(&self, has_key: bool, tombstones: bool) -> bool {
        has_key
            && match self.cleanup {
                Cleanup::Auto => tombstones,
                Cleanup::Compact => true,
                Cleanup::Delete => false,
            }
    }
}

/// The topics this run made sure of, and whether each is compacted.
#[derive(Default)]
pub(super) struct Topics {
    admin: Option<AdminClient<DefaultClientContext>>,
    /// Looked up for every message: a fast hash of names the sink chose.
    known: HashMap<String, bool, foldhash::fast::RandomState>,
}

impl Topics {
    /// Whether `topic` is compacted, once it exists: created now with
    /// `compacted` and the settings, unless it was already there (then it
    /// is taken to be as the settings say).
    pub fn ensure(
        &mut self,
        config: &KafkaConfig,
        topic: &str,
        compacted: impl FnOnce() -> bool,
    ) -> Result<bool, SinkError> {
        if let Some(&c) = self.known.get(topic) {
            return Ok(c);
        }
        let compacted = compacted();
        if self.admin.is_none() {
            let admin = offsets::admin(config).map_err(|why| SinkError::Kafka {
                message: format!("cannot create topic {topic}: no admin client ({why})"),
            })?;
            self.admin = Some(admin);
        }
        if let Some(admin) = self.admin.as_ref().filter(|a| !exists(a, topic)) {
            create(admin, config, topic, compacted)?;
        }
        self.known.insert(topic.to_string(), compacted);
        Ok(compacted)
    }
}

/// Whether the brokers list `topic`: a topic made by an operator is used
/// as it is, even by a principal without CREATE (which Kafka answers with
/// an authorization error rather than "exists").
fn exists(admin: &AdminClient<DefaultClientContext>, topic: &str) -> bool {
    admin
        .inner()
        .fetch_metadata(Some(topic), CALL_TIMEOUT)
        .is_ok_and(|md| {
            md.topics()
                .iter()
                .any(|t| t.name() == topic && t.error().is_none() && !t.partitions().is_empty())
        })
}

fn create(
    admin: &AdminClient<DefaultClientContext>,
    config: &KafkaConfig,
    topic: &str,
    compacted: bool,
) -> Result<(), SinkError> {
    let settings = config.topics;
    let replication = TopicReplication::Fixed(settings.replication.unwrap_or(-1));
    let policy = if compacted { "compact" } else { "delete" };
    let new = NewTopic::new(topic, settings.partitions, replication).set("cleanup.policy", policy);
    let options = AdminOptions::new().operation_timeout(Some(CALL_TIMEOUT));
    let failed = match offsets::block_on(admin.create_topics([&new], &options)) {
        Ok(results) => results
            .into_iter()
            .find_map(|r| r.err().map(|(_, code)| code)),
        Err(e) => {
            // No answer is no refusal: the producer waits for the broker
            // as it does for any message.
            tracing::warn!(
                "kafka: cannot create topic {topic} ({e}); it is left to the broker's \
                 auto-creation"
            );
            return Ok(());
        }
    };
    match failed {
        None => {
            tracing::info!(
                "kafka: created topic {topic} ({} partition(s), cleanup.policy={policy})",
                settings.partitions
            );
            Ok(())
        }
        Some(RDKafkaErrorCode::TopicAlreadyExists) => Ok(()),
        Some(code) => Err(refused(topic, &code.to_string(), settings, policy)),
    }
}

fn refused(topic: &str, why: &str, settings: TopicSettings, policy: &str) -> SinkError {
    let replication = settings
        .replication
        .map_or(String::new(), |r| format!(" --replication-factor {r}"));
    SinkError::Kafka {
        message: format!(
            "the broker refused to create topic {topic} ({why}); create it yourself \
             (kafka-topics.sh --create --topic {topic} --partitions {}{replication} --config \
             cleanup.policy={policy}), give cdcctl's user CREATE on the cluster, or change \
             --topic-partitions, --topic-replication or --topic-cleanup",
            settings.partitions
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_tables_get_compacted_topics_when_tombstones_are_on_and_keyless_never() {
        let auto = TopicSettings::default();
        assert!(auto.compacted(true, true));
        assert!(!auto.compacted(true, false), "no tombstones: deletes stay");
        assert!(
            !auto.compacted(false, true),
            "no key: a compacted topic refuses it"
        );
        let compact = TopicSettings {
            cleanup: Cleanup::Compact,
            ..auto
        };
        assert!(compact.compacted(true, false) && !compact.compacted(false, true));
        let delete = TopicSettings {
            cleanup: Cleanup::Delete,
            ..auto
        };
        assert!(!delete.compacted(true, true));
    }

    #[test]
    fn a_refusal_names_the_topic_and_the_command_that_creates_it() {
        let settings = TopicSettings {
            partitions: 3,
            replication: Some(2),
            cleanup: Cleanup::Auto,
        };
        let e = refused(
            "erp.APP.ORDERS",
            "TopicAuthorizationFailed",
            settings,
            "compact",
        );
        let text = e.to_string();
        assert!(
            text.contains("erp.APP.ORDERS (TopicAuthorizationFailed)")
                && text.contains("--partitions 3 --replication-factor 2")
                && text.contains("cleanup.policy=compact"),
            "{text}"
        );
    }
}
