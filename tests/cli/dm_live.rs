//! The `dm://` source from the command line. Without a DM8 server: what a
//! user sees when nothing listens, when no password can be had, when the
//! address carries one. With one: preflight, partitions and tail against
//! DM8, run only when `CDCCTL_TEST_DM` names it, e.g. DM8 in Docker:
//!
//! ```text
//! CDCCTL_TEST_DM=dm://SYSDBA@127.0.0.1:5236 CDCCTL_PASSWORD=... \
//!     cargo test --test cli dm_
//! ```
//!
//! `CDCCTL_TEST_DM_DML` (optional, with `CDCCTL_TEST_DM_DML_PASSWORD`) is
//! the session that makes the test changes, when the mining user has only
//! the CDC grants; without it the mining user makes them itself. Without
//! `CDCCTL_TEST_DM` each live test prints a `skipped:` line and passes.

use std::io::{Read as _, Write as _};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cdcctl::source::dm::DmSpec;
use dm_pure::DmClient;

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");
const URL_ENV: &str = "CDCCTL_TEST_DM";
const DML_URL_ENV: &str = "CDCCTL_TEST_DM_DML";
const DML_PASSWORD_ENV: &str = "CDCCTL_TEST_DM_DML_PASSWORD";
const SCHEMA: &str = "CDCCTL_LIVE";

fn run(args: &[&str], env: &[(&str, &str)], remove: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    for k in remove {
        cmd.env_remove(k);
    }
    cmd.env_remove("CDCCTL_SOURCE");
    cmd.output().expect("run cdcctl")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A loopback port nothing listens on: bound, then released.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    drop(listener);
    port
}

fn assert_no_panic(err: &str) {
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("stack backtrace"), "{err}");
    assert!(!err.contains("RUST_BACKTRACE"), "{err}");
}

#[test]
fn dm_with_no_server_listening_every_command_exits_3_with_advice() {
    let url = format!("dm://CDC@127.0.0.1:{}", closed_port());
    for cmd in [
        &["preflight"][..],
        &["partitions", "APP.ORDERS"][..],
        &["tail", "APP.ORDERS", "--plain", "--count", "1"][..],
    ] {
        let args = [&["--source", url.as_str()][..], cmd].concat();
        let started = Instant::now();
        let out = run(&args, &[("CDCCTL_PASSWORD", "x")], &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert!(started.elapsed() < Duration::from_secs(30), "{args:?}");
        assert!(err.contains("cannot connect to DM8 at 127.0.0.1:"), "{err}");
        assert!(err.contains("Connection refused"), "{err}");
        assert!(err.contains("advice:"), "{err}");
        assert_no_panic(&err);
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    }
}

/// A one-connection loopback server that answers the client's first frame
/// with DM8 error `code` and `message` (code in the frame header, text in
/// the body), as DM8 refuses a login.
fn refusing_server(code: i32, message: &str) -> (u16, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    let (text, _, _) = encoding_rs::GB18030.encode(message);
    let mut body = (text.len() as i32).to_le_bytes().to_vec();
    body.extend_from_slice(&text);
    let handle = std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let mut header = [0u8; 64];
        if stream.read_exact(&mut header).is_err() {
            return;
        }
        let len = u32::from_le_bytes([header[6], header[7], header[8], header[9]]) as usize;
        let mut request = vec![0u8; len];
        let _ = stream.read_exact(&mut request);
        let mut reply = dm_pure::frame::make_header(0, 228, body.len() as u32, &[]);
        reply[10..14].copy_from_slice(&code.to_le_bytes());
        reply[19] = reply[..19].iter().fold(0, |x, b| x ^ b);
        let _ = stream.write_all(&reply);
        let _ = stream.write_all(&body);
    });
    (port, handle)
}

#[test]
fn dm_bad_credentials_exit_3_with_dms_code_and_password_advice() {
    let (port, server) = refusing_server(-2501, "用户名或密码错误");
    let url = format!("dm://CDC@127.0.0.1:{port}");
    let out = run(
        &["--source", &url, "preflight"],
        &[("CDCCTL_PASSWORD", "wrong")],
        &[],
    );
    let _ = server.join();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("refused the login: [-2501]"), "{err}");
    assert!(
        err.contains("advice:") && err.contains("CDCCTL_PASSWORD"),
        "{err}"
    );
    assert!(!err.contains("wrong"), "the password is never shown: {err}");
    assert_no_panic(&err);
}

#[test]
fn dm_without_a_password_or_a_terminal_exits_3_naming_cdcctl_password() {
    let url = format!("dm://CDC@127.0.0.1:{}", closed_port());
    let out = run(&["--source", &url, "preflight"], &[], &["CDCCTL_PASSWORD"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("no password was given for CDC"), "{err}");
    assert!(err.contains("CDCCTL_PASSWORD"), "{err}");
    assert_no_panic(&err);
}

#[test]
fn dm_a_password_in_the_address_exits_2_and_is_never_echoed() {
    let out = run(
        &["--source", "dm://CDC:hunter2@127.0.0.1:5236", "preflight"],
        &[],
        &[],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("carries a password"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

/// The address of the live DM8, or a visible skip.
fn live_url(test: &str) -> Option<String> {
    match std::env::var(URL_ENV) {
        Ok(url) => Some(url),
        Err(_) => {
            // Past the harness's capture, so a plain `cargo test` shows it.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: set {URL_ENV}=dm://SYSDBA@127.0.0.1:5236 (and CDCCTL_PASSWORD) to run against DM8 ({test})"
            );
            None
        }
    }
}

/// A plain connection for the test's own DDL and DML.
fn dml_client(url: &str) -> DmClient {
    let (url, password) = match std::env::var(DML_URL_ENV) {
        Ok(dml) => (dml, std::env::var(DML_PASSWORD_ENV).unwrap_or_default()),
        Err(_) => (
            url.to_string(),
            std::env::var("CDCCTL_PASSWORD").unwrap_or_default(),
        ),
    };
    let spec = DmSpec::parse(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
    let mut client = DmClient::new(&spec.host, spec.port, &spec.user, &password);
    client
        .connect()
        .unwrap_or_else(|e| panic!("cannot connect the DML session to {url}: {e}"));
    client
}

fn exec(client: &mut DmClient, sql: &str) {
    client
        .execute(sql, &[])
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// The test schema and tables, made once; an existing schema is fine.
fn ensure_tables(client: &mut DmClient) {
    let _ = client.execute(&format!("CREATE SCHEMA {SCHEMA}"), &[]);
    exec(
        client,
        &format!(
            "CREATE TABLE IF NOT EXISTS {SCHEMA}.T_LIVE (ID INT PRIMARY KEY, NOTE VARCHAR(100), AMOUNT DECIMAL(12, 4), D DATE)"
        ),
    );
    exec(
        client,
        &format!(
            "CREATE TABLE IF NOT EXISTS {SCHEMA}.T_PART (ID INT PRIMARY KEY, NOTE VARCHAR(20)) \
             PARTITION BY RANGE (ID) (PARTITION P1 VALUES LESS THAN (100), PARTITION P2 VALUES LESS THAN (MAXVALUE))"
        ),
    );
}

fn live_env() -> Vec<(&'static str, String)> {
    vec![(
        "CDCCTL_PASSWORD",
        std::env::var("CDCCTL_PASSWORD").unwrap_or_default(),
    )]
}

fn run_live(args: &[&str]) -> Output {
    let env = live_env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    run(args, &env, &[])
}

#[test]
fn dm_live_preflight_reads_the_dm8_facts() {
    let Some(url) = live_url("preflight") else {
        return;
    };
    let out = run_live(&["--source", &url, "preflight", "--format", "json"]);
    let err = stderr(&out);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(report["source"]["dialect"], "dm", "{report}");
    let checks = report["checks"].as_array().cloned().unwrap_or_default();
    for id in ["dm-arch", "dm-logic-log", "dm-pkg", "dm-arch-dest"] {
        let check = checks
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no {id} in {report}"));
        assert_ne!(check["status"], "skip", "{id} was not evaluated: {check}");
    }
}

#[test]
fn dm_live_partitions_lists_a_range_partitioned_table() {
    let Some(url) = live_url("partitions") else {
        return;
    };
    ensure_tables(&mut dml_client(&url));
    let table = format!("{SCHEMA}.T_PART");
    let out = run_live(&["--source", &url, "partitions", &table, "--format", "json"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"P1\"") && text.contains("\"P2\""), "{text}");
}

#[test]
fn dm_live_tail_prints_changes_made_after_it_starts() {
    let Some(url) = live_url("tail") else {
        return;
    };
    let mut client = dml_client(&url);
    ensure_tables(&mut client);
    let id = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_millis() % 1_000_000_000) as i64;
    let table = format!("{SCHEMA}.T_LIVE");
    let mut child = Command::new(BIN)
        .args(["--source", &url, "tail", &table, "--plain", "--count", "3"])
        .env(
            "CDCCTL_PASSWORD",
            std::env::var("CDCCTL_PASSWORD").unwrap_or_default(),
        )
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tail");
    // Tail starts at the current LSN once it has read the dictionary.
    std::thread::sleep(Duration::from_secs(5));
    exec(
        &mut client,
        &format!("INSERT INTO {table} VALUES ({id}, 'first', 12.5, DATE'2026-01-02')"),
    );
    exec(
        &mut client,
        &format!("UPDATE {table} SET NOTE = 'second' WHERE ID = {id}"),
    );
    exec(&mut client, &format!("DELETE FROM {table} WHERE ID = {id}"));
    let _ = client.execute("COMMIT", &[]);
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll tail") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let mut out = String::new();
    let mut err = String::new();
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut err);
    }
    let status = status.unwrap_or_else(|| panic!("tail did not see 3 changes in 120 s: {err}"));
    assert!(status.success(), "{err}");
    let ops: Vec<String> = out
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["op"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(ops, ["c", "u", "d"], "{out}\n{err}");
}
