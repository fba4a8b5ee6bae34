//! Spill files: the rows of a transaction too large to keep in memory,
//! written to an anonymous temporary file and streamed back at COMMIT.
//!
//! The format is private to one process run (the file is unlinked on
//! creation and vanishes with the transaction), so it is a plain
//! length-prefixed encoding of the `LogMinerRow` fields, in push order.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use chrono::DateTime;

use crate::engine::row::{LogMinerRow, OperationCode};

/// Rows of one transaction on disk.
#[derive(Debug)]
pub(crate) struct SpillFile {
    writer: BufWriter<File>,
    rows: usize,
    bytes: u64,
}

impl SpillFile {
    /// An unlinked temporary file in `dir` (or the system temp dir).
    pub(crate) fn create(dir: Option<&Path>) -> io::Result<Self> {
        let file = match dir {
            Some(d) => tempfile::tempfile_in(d)?,
            None => tempfile::tempfile()?,
        };
        Ok(Self {
            writer: BufWriter::with_capacity(256 * 1024, file),
            rows: 0,
            bytes: 0,
        })
    }

    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Bytes written to disk so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    pub(crate) fn append(&mut self, row: &LogMinerRow) -> io::Result<()> {
        let mut enc = Encoder {
            out: &mut self.writer,
            written: 0,
        };
        enc.row(row)?;
        self.bytes += enc.written;
        self.rows += 1;
        Ok(())
    }

    /// Flushes and rewinds the file for reading back in push order.
    pub(crate) fn into_reader(self) -> io::Result<SpillReader> {
        let mut file = self.writer.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        Ok(SpillReader {
            reader: BufReader::with_capacity(256 * 1024, file),
            remaining: self.rows,
        })
    }
}

/// Streams the spilled rows back, in the order they were written.
pub(crate) struct SpillReader {
    reader: BufReader<File>,
    remaining: usize,
}

impl SpillReader {
    pub(crate) fn next_row(&mut self) -> io::Result<Option<LogMinerRow>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        Decoder {
            input: &mut self.reader,
        }
        .row()
        .map(Some)
    }
}

struct Encoder<'a, W: Write> {
    out: &'a mut W,
    written: u64,
}

impl<W: Write> Encoder<'_, W> {
    fn bytes(&mut self, b: &[u8]) -> io::Result<()> {
        self.out.write_all(b)?;
        self.written += b.len() as u64;
        Ok(())
    }

    fn u64(&mut self, v: u64) -> io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }

    fn opt_u64(&mut self, v: Option<u64>) -> io::Result<()> {
        match v {
            Some(v) => {
                self.bytes(&[1])?;
                self.u64(v)
            }
            None => self.bytes(&[0]),
        }
    }

    fn str(&mut self, s: &str) -> io::Result<()> {
        let len = u32::try_from(s.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "string over 4 GiB"))?;
        self.bytes(&len.to_le_bytes())?;
        self.bytes(s.as_bytes())
    }

    fn opt_str(&mut self, s: Option<&str>) -> io::Result<()> {
        match s {
            Some(s) => {
                self.bytes(&[1])?;
                self.str(s)
            }
            None => self.bytes(&[0]),
        }
    }

    fn row(&mut self, r: &LogMinerRow) -> io::Result<()> {
        self.u64(r.scn)?;
        self.opt_u64(r.start_scn)?;
        self.opt_u64(r.commit_scn)?;
        match r.timestamp {
            Some(ts) => {
                let utc = ts.and_utc();
                self.bytes(&[1])?;
                self.bytes(&utc.timestamp().to_le_bytes())?;
                self.bytes(&utc.timestamp_subsec_nanos().to_le_bytes())?;
            }
            None => self.bytes(&[0])?,
        }
        self.str(&r.xid)?;
        self.bytes(&r.operation_code.code().to_le_bytes())?;
        self.bytes(&[u8::from(r.rollback), u8::from(r.csf)])?;
        self.opt_str(r.seg_owner.as_deref())?;
        self.opt_str(r.table_name.as_deref())?;
        self.opt_str(r.row_id.as_deref())?;
        self.opt_str(r.username.as_deref())?;
        self.opt_str(r.rs_id.as_deref())?;
        self.u64(r.ssn)?;
        self.opt_str(r.sql_redo.as_deref())?;
        self.bytes(&r.status.to_le_bytes())?;
        self.opt_str(r.info.as_deref())?;
        self.bytes(&r.thread.to_le_bytes())?;
        self.u64(r.sequence)?;
        self.opt_u64(r.data_obj)?;
        self.opt_u64(r.data_objd)?;
        self.opt_str(r.src_con_name.as_deref())
    }
}

struct Decoder<'a, R: Read> {
    input: &'a mut R,
}

fn corrupt(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("spill file: {what}"))
}

impl<R: Read> Decoder<'_, R> {
    fn array<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let mut b = [0u8; N];
        self.input.read_exact(&mut b)?;
        Ok(b)
    }

    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    fn flag(&mut self) -> io::Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(corrupt("bad flag byte")),
        }
    }

    fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn opt_u64(&mut self) -> io::Result<Option<u64>> {
        Ok(if self.flag()? {
            Some(self.u64()?)
        } else {
            None
        })
    }

    fn string(&mut self) -> io::Result<String> {
        let len = u32::from_le_bytes(self.array()?) as usize;
        let mut buf = vec![0u8; len];
        self.input.read_exact(&mut buf)?;
        String::from_utf8(buf).map_err(|_| corrupt("invalid UTF-8"))
    }

    fn opt_string(&mut self) -> io::Result<Option<String>> {
        Ok(if self.flag()? {
            Some(self.string()?)
        } else {
            None
        })
    }

    fn row(&mut self) -> io::Result<LogMinerRow> {
        let scn = self.u64()?;
        let start_scn = self.opt_u64()?;
        let commit_scn = self.opt_u64()?;
        let timestamp = if self.flag()? {
            let secs = i64::from_le_bytes(self.array()?);
            let nanos = u32::from_le_bytes(self.array()?);
            Some(
                DateTime::from_timestamp(secs, nanos)
                    .ok_or_else(|| corrupt("timestamp out of range"))?
                    .naive_utc(),
            )
        } else {
            None
        };
        let xid = self.string()?;
        let operation_code = OperationCode::from_code(u16::from_le_bytes(self.array()?));
        let rollback = self.flag()?;
        let csf = self.flag()?;
        Ok(LogMinerRow {
            scn,
            start_scn,
            commit_scn,
            timestamp,
            xid,
            operation_code,
            rollback,
            seg_owner: self.opt_string()?,
            table_name: self.opt_string()?,
            row_id: self.opt_string()?,
            username: self.opt_string()?,
            rs_id: self.opt_string()?,
            ssn: self.u64()?,
            csf,
            sql_redo: self.opt_string()?,
            status: i32::from_le_bytes(self.array()?),
            info: self.opt_string()?,
            thread: u16::from_le_bytes(self.array()?),
            sequence: self.u64()?,
            data_obj: self.opt_u64()?,
            data_objd: self.opt_u64()?,
            src_con_name: self.opt_string()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn full_row() -> LogMinerRow {
        LogMinerRow {
            scn: 9_007_199_254_740_993,
            start_scn: Some(10),
            commit_scn: None,
            timestamp: NaiveDate::from_ymd_opt(2025, 3, 1).and_then(|d| d.and_hms_opt(9, 0, 1)),
            xid: "0A0014005D3C0000".into(),
            operation_code: OperationCode::Update,
            rollback: true,
            seg_owner: Some("APP".into()),
            table_name: Some("ORDERS".into()),
            row_id: Some("AAAR3sAAEAAAACXAAA".into()),
            username: None,
            rs_id: Some(" 0x000003.00000010.0010 ".into()),
            ssn: 7,
            csf: false,
            sql_redo: Some("update \"APP\".\"ORDERS\" set \"NOTE\" = '中文' where 1;".into()),
            status: 2,
            info: Some("why".into()),
            thread: 2,
            sequence: 123,
            data_obj: Some(74622),
            data_objd: None,
            src_con_name: Some("ORCLPDB1".into()),
        }
    }

    #[test]
    fn spilled_rows_read_back_identical_and_in_order() {
        let mut spill = SpillFile::create(None).unwrap();
        let a = full_row();
        let b = LogMinerRow {
            scn: 11,
            operation_code: OperationCode::Other(91),
            ..LogMinerRow::default()
        };
        spill.append(&a).unwrap();
        spill.append(&b).unwrap();
        assert_eq!(spill.rows(), 2);
        assert!(spill.bytes() > 0);
        let mut r = spill.into_reader().unwrap();
        assert_eq!(r.next_row().unwrap(), Some(a));
        assert_eq!(r.next_row().unwrap(), Some(b));
        assert_eq!(r.next_row().unwrap(), None);
    }
}
