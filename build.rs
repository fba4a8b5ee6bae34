//! Stamps the binary with the commit and build date `--version` prints. A
//! source tarball without `.git` (or without git) builds all the same.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let commit = git(&["rev-parse", "--short=12", "HEAD"]);
    if commit.is_some() {
        // A new commit or checkout moves HEAD or the branch it names.
        for path in [
            git(&["rev-parse", "--git-path", "HEAD"]),
            git(&["rev-parse", "--symbolic-full-name", "HEAD"])
                .and_then(|r| git(&["rev-parse", "--git-path", &r])),
        ]
        .into_iter()
        .flatten()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some();
    let commit = match commit {
        Some(c) if dirty => format!("{c}-modified"),
        Some(c) => c,
        None => "unknown commit".into(),
    };
    // Reproducible builds set SOURCE_DATE_EPOCH; otherwise today (UTC).
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    let date = civil_date(secs.div_euclid(86_400));
    // Tests that need a Kafka broker or PyFlink are ignored, with their
    // reason, unless these are set: a test that did not run never reads ok.
    for (var, cfg) in [
        ("CDCCTL_REQUIRE_KAFKA", "cdcctl_kafka"),
        ("CDCCTL_TEST_FLINK", "cdcctl_flink"),
    ] {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        println!("cargo:rerun-if-env-changed={var}");
        if std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
    println!("cargo:rustc-env=CDCCTL_COMMIT={commit}");
    println!("cargo:rustc-env=CDCCTL_BUILD_DATE={date}");
}

/// `YYYY-MM-DD` of a day count since 1970-01-01 (proleptic Gregorian; the
/// build script has no date library).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
