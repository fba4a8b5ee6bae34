//! `--pdb`: which container's tables a capture reads, and whose redo it
//! keeps when it mines from CDB$ROOT.

use crate::source::oracle::ROOT;
use crate::source::{resolve_pdb, sole_open_pdb, Catalog, InstanceFacts, SessionFacts};

use super::{usage_error, OpenError};

/// What `--pdb` asks of an opened source.
#[derive(Debug, PartialEq, Eq)]
enum PdbChoice {
    /// No PDB named.
    None,
    /// Connected to CDB$ROOT: read this PDB's tables inside it and filter
    /// the redo on SRC_CON_NAME.
    FromRoot(String),
    /// Connected to that PDB already: per-PDB mining, no filter.
    Connected,
}

/// Checks `--pdb` against `V$PDBS` and the session's container.
fn choose_pdb(
    requested: Option<&str>,
    instance: &InstanceFacts,
    session: &SessionFacts,
) -> Result<PdbChoice, OpenError> {
    let in_root = session.con_name.is_empty() || session.con_name == ROOT;
    let Some(requested) = requested else {
        return Ok(
            match (instance.cdb && in_root, sole_open_pdb(&instance.pdbs)) {
                (true, Some(only)) => PdbChoice::FromRoot(only),
                _ => PdbChoice::None,
            },
        );
    };
    if !instance.cdb {
        return Err(usage_error(format!(
            "--pdb {requested}: {} is not a multitenant database (V$DATABASE.CDB = NO); drop --pdb",
            instance.db_name
        )));
    }
    let name =
        resolve_pdb(requested, &instance.pdbs).map_err(|e| usage_error(format!("--pdb: {e}")))?;
    if in_root {
        return Ok(PdbChoice::FromRoot(name));
    }
    if session.con_name == name {
        return Ok(PdbChoice::Connected);
    }
    Err(usage_error(format!(
        "--pdb {name}: the session is connected to {}; connect to CDB$ROOT to mine another PDB, or drop --pdb",
        session.con_name
    )))
}

/// Reads the instance and session facts and points table reads at the PDB
/// `--pdb` names (or the only open one, from the root). Returns the PDB to
/// filter the redo on, if any.
pub fn point_at_pdb(
    catalog: &mut dyn Catalog,
    pdb: Option<&str>,
) -> Result<(InstanceFacts, SessionFacts, Option<String>), OpenError> {
    let instance = catalog.instance().map_err(|e| OpenError::from_source(&e))?;
    let session = catalog.session().map_err(|e| OpenError::from_source(&e))?;
    let filter = match choose_pdb(pdb, &instance, &session)? {
        PdbChoice::FromRoot(name) => {
            catalog
                .set_pdb(Some(&name))
                .map_err(|e| OpenError::from_source(&e))?;
            Some(name)
        }
        PdbChoice::None | PdbChoice::Connected => None,
    };
    Ok((instance, session, filter))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::PdbFacts;

    fn cdb() -> InstanceFacts {
        InstanceFacts {
            db_name: "ORCLCDB".into(),
            cdb: true,
            pdbs: vec![
                PdbFacts {
                    name: "ORCLPDB1".into(),
                    con_id: 3,
                    open_mode: "READ WRITE".into(),
                    ..Default::default()
                },
                PdbFacts {
                    name: "ORCLPDB2".into(),
                    con_id: 4,
                    open_mode: "READ WRITE".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        }
    }

    fn in_container(name: &str) -> SessionFacts {
        SessionFacts {
            con_name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn pdb_from_root_is_normalised_and_checked_against_v_pdbs() {
        let root = in_container(ROOT);
        assert_eq!(
            choose_pdb(Some("orclpdb1"), &cdb(), &root).expect("known PDB"),
            PdbChoice::FromRoot("ORCLPDB1".into())
        );
        let err = choose_pdb(Some("nosuch"), &cdb(), &root).expect_err("unknown PDB");
        assert_eq!(err.exit_code, crate::exit::USAGE);
        assert!(
            err.message.contains("ORCLPDB1, ORCLPDB2"),
            "{}",
            err.message
        );
        assert_eq!(
            choose_pdb(None, &cdb(), &root).expect("none"),
            PdbChoice::None
        );
    }

    #[test]
    fn pdb_of_a_session_connected_to_it_mines_per_pdb() {
        let inside = in_container("ORCLPDB1");
        assert_eq!(
            choose_pdb(Some("orclpdb1"), &cdb(), &inside).expect("same PDB"),
            PdbChoice::Connected
        );
        let err = choose_pdb(Some("orclpdb2"), &cdb(), &inside).expect_err("other PDB");
        assert!(
            err.message.contains("connected to ORCLPDB1"),
            "{}",
            err.message
        );
    }

    #[test]
    fn pdb_on_a_non_cdb_is_a_usage_error() {
        let facts = InstanceFacts {
            db_name: "ORCL".into(),
            ..Default::default()
        };
        let err = choose_pdb(Some("X"), &facts, &in_container("")).expect_err("non-CDB");
        assert_eq!(err.exit_code, crate::exit::USAGE);
    }
}
