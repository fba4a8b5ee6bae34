//! Rows to the tables' facts, the open transactions and the log inventory.

use std::collections::{BTreeMap, BTreeSet};

use crate::source::{
    ArchiveDestStatus, ArchivedLog, ColumnFacts, Dialect, IndexFacts, KeyConstraint, LogGroupFacts,
    LogInventory, OnlineLog, OpenTransaction, PartitionFacts, PartitioningFacts, RedoThread,
    SessionTransaction, TableFacts, TableName, TransactionSession,
};

use super::file::*;
use super::read::*;

pub(super) fn tables_from(ev: &EvidenceFile) -> Result<Vec<TableFacts>, String> {
    let encrypted: BTreeSet<String> = ev
        .rows_or_empty("encrypted_tablespaces")
        .iter()
        .map(|r| text_or(r, "TABLESPACE_NAME"))
        .collect();
    let mut tables: BTreeMap<TableName, TableFacts> = BTreeMap::new();
    for r in ev.rows("tables")? {
        let name = table_key(r, "OWNER", "TABLE_NAME");
        let t = TableFacts {
            name: name.clone(),
            logging: yes(r, "LOGGING"),
            temporary: yes(r, "TEMPORARY"),
            iot_type: text(r, "IOT_TYPE"),
            nested: yes(r, "NESTED"),
            compress_for: text(r, "COMPRESS_FOR"),
            num_rows: num(r, "NUM_ROWS"),
            encrypted: text(r, "TABLESPACE_NAME").is_some_and(|ts| encrypted.contains(&ts)),
            ..Default::default()
        };
        tables.insert(name, t);
    }
    add_columns(ev, &mut tables);
    add_keys_and_indexes(ev, &mut tables);
    add_partitioning(ev, &mut tables);
    add_storage(ev, &mut tables);
    add_grants(ev, &mut tables);
    Ok(tables.into_values().collect())
}

/// Tables by name while their facts are gathered from the views' rows.
pub(super) type Tables = BTreeMap<TableName, TableFacts>;

pub(super) fn add_columns(ev: &EvidenceFile, tables: &mut Tables) {
    for r in ev.rows_or_empty("columns") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            t.columns.push(ColumnFacts {
                name: text_or(r, "COLUMN_NAME"),
                data_type: text_or(r, "DATA_TYPE"),
                data_type_owner: text(r, "DATA_TYPE_OWNER"),
                nullable: yes(r, "NULLABLE"),
                data_length: num(r, "DATA_LENGTH").map(|v| v as u32),
                data_precision: num(r, "DATA_PRECISION").map(|v| v as u32),
                data_scale: int(r, "DATA_SCALE").map(|v| v as i32),
                hidden: yes(r, "HIDDEN_COLUMN"),
                virtual_column: yes(r, "VIRTUAL_COLUMN"),
            });
        }
    }
}

/// Constraints, indexes (with their unusable partitions) and supplemental
/// log groups.
pub(super) fn add_keys_and_indexes(ev: &EvidenceFile, tables: &mut Tables) {
    let mut cons: Vec<&Row> = ev.rows_or_empty("constraints").iter().collect();
    cons.sort_by_key(|r| num(r, "POSITION").unwrap_or(0));
    for r in cons {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            let name = text_or(r, "CONSTRAINT_NAME");
            let col = text_or(r, "COLUMN_NAME");
            match t.constraints.iter_mut().find(|c| c.name == name) {
                Some(c) => c.columns.push(col),
                None => t.constraints.push(KeyConstraint {
                    name,
                    constraint_type: text_or(r, "CONSTRAINT_TYPE"),
                    columns: vec![col],
                    enabled: yes(r, "STATUS"),
                }),
            }
        }
    }
    let mut idx: Vec<&Row> = ev.rows_or_empty("indexes").iter().collect();
    idx.sort_by_key(|r| num(r, "COLUMN_POSITION").unwrap_or(0));
    for r in idx {
        if let Some(t) = tables.get_mut(&table_key(r, "TABLE_OWNER", "TABLE_NAME")) {
            let name = text_or(r, "INDEX_NAME");
            let col = text_or(r, "COLUMN_NAME");
            match t.indexes.iter_mut().find(|i| i.name == name) {
                Some(i) => i.columns.push(col),
                None => t.indexes.push(IndexFacts {
                    name,
                    unique: text_or(r, "UNIQUENESS") == "UNIQUE",
                    columns: vec![col],
                    local: yes(r, "PARTITIONED"),
                    status: text_or(r, "STATUS"),
                    unusable_partitions: Vec::new(),
                }),
            }
        }
    }
    for r in ev.rows_or_empty("unusable_index_partitions") {
        let owner = text_or(r, "INDEX_OWNER");
        let name = text_or(r, "INDEX_NAME");
        for t in tables.values_mut().filter(|t| t.name.owner == owner) {
            if let Some(i) = t.indexes.iter_mut().find(|i| i.name == name) {
                i.unusable_partitions.push(text_or(r, "PARTITION_NAME"));
            }
        }
    }
    for r in ev.rows_or_empty("log_groups") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            t.log_groups.push(LogGroupFacts {
                name: text_or(r, "LOG_GROUP_NAME"),
                log_group_type: text_or(r, "LOG_GROUP_TYPE"),
                always: yes(r, "ALWAYS"),
            });
        }
    }
}

pub(super) fn add_partitioning(ev: &EvidenceFile, tables: &mut Tables) {
    for r in ev.rows_or_empty("part_tables") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            t.partitioning = Some(PartitioningFacts {
                partitioning_type: text_or(r, "PARTITIONING_TYPE"),
                subpartitioning_type: text(r, "SUBPARTITIONING_TYPE").filter(|s| s != "NONE"),
                interval: text(r, "INTERVAL"),
                ..Default::default()
            });
        }
    }
    let mut keys: Vec<&Row> = ev.rows_or_empty("part_key_columns").iter().collect();
    keys.sort_by_key(|r| num(r, "COLUMN_POSITION").unwrap_or(0));
    for r in keys {
        if let Some(p) = tables
            .get_mut(&table_key(r, "OWNER", "NAME"))
            .and_then(|t| t.partitioning.as_mut())
        {
            p.key_columns.push(text_or(r, "COLUMN_NAME"));
        }
    }
    let mut parts: Vec<&Row> = ev.rows_or_empty("tab_partitions").iter().collect();
    parts.sort_by_key(|r| num(r, "PARTITION_POSITION").unwrap_or(0));
    for r in parts {
        if let Some(p) = tables
            .get_mut(&table_key(r, "TABLE_OWNER", "TABLE_NAME"))
            .and_then(|t| t.partitioning.as_mut())
        {
            p.partitions.push(PartitionFacts {
                name: text_or(r, "PARTITION_NAME"),
                position: num(r, "PARTITION_POSITION").unwrap_or(0) as u32,
                high_value: text_or(r, "HIGH_VALUE"),
                num_rows: num(r, "NUM_ROWS"),
                interval: yes(r, "INTERVAL"),
                subpartition_count: num(r, "SUBPARTITION_COUNT").unwrap_or(0) as u32,
                ..Default::default()
            });
        }
    }
}

/// Segment sizes and object ids, of tables and of their partitions.
pub(super) fn add_storage(ev: &EvidenceFile, tables: &mut Tables) {
    for r in ev.rows_or_empty("segments") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "SEGMENT_NAME")) {
            let bytes = num(r, "BYTES").unwrap_or(0);
            t.segment_bytes = Some(t.segment_bytes.unwrap_or(0) + bytes);
            if let (Some(pn), Some(p)) = (text(r, "PARTITION_NAME"), t.partitioning.as_mut()) {
                if let Some(part) = p.partitions.iter_mut().find(|x| x.name == pn) {
                    part.bytes = Some(part.bytes.unwrap_or(0) + bytes);
                }
            }
        }
    }
    for r in ev.rows_or_empty("objects") {
        let Some(t) = tables.get_mut(&table_key(r, "OWNER", "OBJECT_NAME")) else {
            continue;
        };
        let kind = text_or(r, "OBJECT_TYPE");
        if kind == "TABLE" {
            t.object_id = num(r, "OBJECT_ID");
            t.data_object_id = num(r, "DATA_OBJECT_ID");
            t.last_ddl_time = time(r, "LAST_DDL_TIME");
        } else if kind == "TABLE PARTITION" {
            let sub = text_or(r, "SUBOBJECT_NAME");
            if let Some(part) = t
                .partitioning
                .as_mut()
                .and_then(|p| p.partitions.iter_mut().find(|x| x.name == sub))
            {
                part.object_id = num(r, "OBJECT_ID").unwrap_or(0);
                part.data_object_id = num(r, "DATA_OBJECT_ID");
                part.created = time(r, "CREATED");
                part.last_ddl_time = time(r, "LAST_DDL_TIME");
            }
        }
    }
}

/// Object grants and the flashback probe's answer.
pub(super) fn add_grants(ev: &EvidenceFile, tables: &mut Tables) {
    for r in ev.rows_or_empty("tab_privs") {
        if let Some(t) = tables.get_mut(&table_key(r, "TABLE_SCHEMA", "TABLE_NAME")) {
            let p = text_or(r, "PRIVILEGE");
            if !t.granted.contains(&p) {
                t.granted.push(p);
            }
        }
    }
    for r in ev.rows_or_empty("flashback_probe") {
        if let Some(t) = tables.get_mut(&table_key(r, "OWNER", "TABLE_NAME")) {
            t.flashback_probe_error = num(r, "ORA_CODE").filter(|c| *c != 0).map(|c| c as u32);
        }
    }
}

pub(super) fn transactions_from(ev: &EvidenceFile) -> Result<Vec<SessionTransaction>, String> {
    let mut v: Vec<SessionTransaction> = ev
        .rows("transactions")?
        .iter()
        .map(|r| {
            let transaction = OpenTransaction {
                xid: text_or(r, "XID"),
                start_scn: num(r, "START_SCN").unwrap_or(0),
                start_time: time(r, "START_DATE"),
                used_urec: num(r, "USED_UREC").unwrap_or(0),
                username: text(r, "USERNAME"),
                con_name: text(r, "CON_NAME"),
            };
            // The outer join to V$SESSION found no row: no SID.
            let session = num(r, "SID").map(|sid| TransactionSession {
                sid: Some(sid),
                serial: num(r, "SERIAL#"),
                username: transaction.username.clone(),
                program: text(r, "PROGRAM"),
                machine: text(r, "MACHINE"),
                inst_id: num(r, "INST_ID").and_then(|i| u32::try_from(i).ok()),
            });
            SessionTransaction {
                transaction,
                session,
            }
        })
        .collect();
    v.sort_by_key(|t| t.transaction.start_scn);
    Ok(v)
}

pub(super) fn archived_from(r: &Row) -> ArchivedLog {
    ArchivedLog {
        name: text(r, "NAME"),
        dest_id: num(r, "DEST_ID").unwrap_or(0) as u32,
        thread: num(r, "THREAD#").unwrap_or(1) as u16,
        sequence: num(r, "SEQUENCE#").unwrap_or(0),
        first_change: num(r, "FIRST_CHANGE#").unwrap_or(0),
        next_change: num(r, "NEXT_CHANGE#").unwrap_or(0),
        first_time: time(r, "FIRST_TIME"),
        next_time: time(r, "NEXT_TIME"),
        status: text(r, "STATUS").unwrap_or_else(|| "A".into()),
        deleted: yes(r, "DELETED"),
        archived: r.get("ARCHIVED").is_none() || yes(r, "ARCHIVED"),
        resetlogs_change: num(r, "RESETLOGS_CHANGE#").unwrap_or(0),
        bytes: num(r, "BYTES").unwrap_or(0),
    }
}

pub(super) fn inventory_from(ev: &EvidenceFile) -> Result<LogInventory, String> {
    let mut inv = LogInventory::default();
    if ev.dialect == Dialect::Dm {
        inv.archived = ev
            .rows("dm_archived_logs")?
            .iter()
            .map(archived_from)
            .collect();
        return Ok(inv);
    }
    inv.resetlogs_change = ev
        .rows_or_empty("database")
        .first()
        .and_then(|r| num(r, "RESETLOGS_CHANGE#"))
        .unwrap_or(0);
    inv.online = ev
        .rows("online_logs")?
        .iter()
        .map(|r| OnlineLog {
            group: num(r, "GROUP#").unwrap_or(0) as u32,
            thread: num(r, "THREAD#").unwrap_or(1) as u16,
            sequence: num(r, "SEQUENCE#").unwrap_or(0),
            bytes: num(r, "BYTES").unwrap_or(0),
            members: num(r, "MEMBERS").unwrap_or(1) as u32,
            status: text_or(r, "STATUS"),
            archived: yes(r, "ARCHIVED"),
            first_change: num(r, "FIRST_CHANGE#").unwrap_or(0),
            next_change: num(r, "NEXT_CHANGE#"),
            first_time: time(r, "FIRST_TIME"),
            member_files: text(r, "MEMBER").into_iter().collect(),
        })
        .collect();
    inv.archived = ev
        .rows_or_empty("archived_logs")
        .iter()
        .map(archived_from)
        .collect();
    inv.destinations = ev
        .rows_or_empty("archive_dests")
        .iter()
        .map(|r| ArchiveDestStatus {
            dest_id: num(r, "DEST_ID").unwrap_or(0) as u32,
            dest_name: text_or(r, "DEST_NAME"),
            status: text_or(r, "STATUS"),
            dest_type: text_or(r, "TYPE"),
            destination: text(r, "DESTINATION"),
        })
        .collect();
    inv.threads = ev
        .rows_or_empty("threads")
        .iter()
        .map(|r| RedoThread {
            thread: num(r, "THREAD#").unwrap_or(1) as u16,
            status: text_or(r, "STATUS"),
            enabled: text_or(r, "ENABLED"),
            current_sequence: num(r, "SEQUENCE#").unwrap_or(0),
            last_redo_scn: num(r, "LAST_REDO_CHANGE#").unwrap_or(0),
            enable_change: num(r, "ENABLE_CHANGE#").unwrap_or(0),
            disable_change: num(r, "DISABLE_CHANGE#").unwrap_or(0),
            checkpoint_change: num(r, "CHECKPOINT_CHANGE#").unwrap_or(0),
        })
        .collect();
    Ok(inv)
}
