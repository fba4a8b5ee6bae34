//! The decoder against OSON python-oracledb's encoder wrote, hand-built
//! nodes of the types that encoder never writes, and damaged bytes.

use super::*;

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).expect("hex"))
        .collect()
}

fn vectors() -> Vec<(String, String, Vec<u8>)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/oson/vectors.json"
    );
    let text = std::fs::read_to_string(path).expect("fixture");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .map(|x| {
            let s = |k: &str| x[k].as_str().expect(k).to_string();
            (s("name"), s("json"), unhex(&s("oson")))
        })
        .collect()
}

#[test]
fn oson_written_by_python_oracledb_decodes_to_the_documents_text() {
    let vectors = vectors();
    assert!(vectors.len() >= 20);
    for (name, json, oson) in vectors {
        assert_eq!(decode(&oson).as_deref(), Ok(json.as_str()), "{name}");
    }
}

/// A scalar document: the header, the flags (scalar), a tree size, a node.
fn scalar(node: &[u8]) -> Vec<u8> {
    let mut b = vec![0xff, 0x4a, 0x5a, 0x01, 0x00, 0x16];
    b.extend_from_slice(&(node.len() as u16).to_be_bytes());
    b.extend_from_slice(node);
    b
}

#[test]
fn numbers_keep_their_exact_digits_in_every_node_form() {
    let cases: [(&[u8], &str); 8] = [
        (&[0x34, 0x01, 0x80], "0"),
        (&[0x21, 0xc1, 0x02], "1"),        // length - 1 in the type
        (&[0x43, 0x3e, 0x64, 0x66], "-1"), // integer, length in the type
        (&[0x22, 0xc1, 0x64, 0x33], "99.5"),
        (&[0x61, 0xc0, 0x33], "0.5"),
        (&[0x21, 0xd0, 0x02], "1E+30"), // beyond 20 padding zeros
        (&[0x22, 0xc2, 0x0b, 0x0b], "1010"),
        (&[0x22, 0x3d, 0x5b, 0x66], "-1000"),
    ];
    for (node, want) in cases {
        assert_eq!(decode(&scalar(node)).as_deref(), Ok(want), "{node:02x?}");
    }
}

#[test]
fn binary_double_and_float_give_the_shortest_number_and_named_non_finite_values() {
    let double = |v: f64| {
        let mut b = v.to_be_bytes();
        if v.is_sign_negative() {
            b.iter_mut().for_each(|x| *x = !*x);
        } else {
            b[0] |= 0x80;
        }
        let mut node = vec![0x36];
        node.extend_from_slice(&b);
        decode(&scalar(&node)).expect("double")
    };
    assert_eq!(double(1.5), "1.5");
    assert_eq!(double(-0.1), "-0.1");
    assert_eq!(double(1e300), "1e+300");
    assert_eq!(double(f64::INFINITY), "\"Infinity\"");
    assert_eq!(double(f64::NEG_INFINITY), "\"-Infinity\"");
    let mut f = 0.1f32.to_be_bytes();
    f[0] |= 0x80;
    assert_eq!(
        decode(&scalar(&[0x7f, f[0], f[1], f[2], f[3]])).as_deref(),
        Ok("0.1")
    );
}

#[test]
fn extended_scalars_become_strings_as_json_serialize_gives_them() {
    let tz = [0x7c, 0x78, 0x7c, 1, 2, 4, 5, 6, 0, 0, 0, 0, 0x14, 0x3c]; // UTC bytes, +00:00
    let ym = [0x3d, 0x80, 0, 0, 1, 62]; // 1 year 2 months
    let neg_ds = [0x3e, 0x7f, 0xff, 0xff, 0xff, 60, 60, 60, 0x80, 0, 0, 0]; // -1 day
    let id = [0x7e, 2, 0xbe, 0xef];
    assert_eq!(
        decode(&scalar(&tz)).as_deref(),
        Ok("\"2024-01-02T03:04:05Z\"")
    );
    assert_eq!(decode(&scalar(&ym)).as_deref(), Ok("\"P1Y2M\""));
    assert_eq!(decode(&scalar(&neg_ds)).as_deref(), Ok("\"-P1DT0H0M0S\""));
    assert_eq!(decode(&scalar(&id)).as_deref(), Ok("\"beef\""));
}

/// An array of two objects, child offsets counted from their container
/// (relative offsets); the second object shares the first's field ids.
#[test]
fn relative_offsets_and_shared_field_ids_decode() {
    let mut t = Vec::new();
    t.extend_from_slice(&[0xc0, 2, 0x00, 0x06, 0x00, 0x10]); // 0: array, children at 6, 16
    t.extend_from_slice(&[0x84, 2, 1, 2, 0x00, 0x08, 0x00, 0x09]); // 6: {a: at 14, b: at 15}
    t.extend_from_slice(&[0x31, 0x30]); // 14: true, 15: null
    t.extend_from_slice(&[0x98, 0x00, 0x06, 0x00, 0x07, 0x00, 0x09]); // 16: ids of 6; at 23, 25
    t.extend_from_slice(&[0x01, b'x', 0x32]); // 23: "x", 25: false
    let mut b = vec![0xff, 0x4a, 0x5a, 0x01, 0x21, 0x07]; // flags: relative offsets
    b.extend_from_slice(&[2, 0x00, 0x04]); // two names in 4 bytes
    b.extend_from_slice(&(t.len() as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0]); // tiny nodes
    b.extend_from_slice(&[0x61, 0x62, 0x00, 0x00, 0x00, 0x02, 1, b'a', 1, b'b']);
    b.extend_from_slice(&t);
    assert_eq!(
        decode(&b).as_deref(),
        Ok(r#"[{"a":true,"b":null},{"a":"x","b":false}]"#)
    );
}

#[test]
fn unknown_node_types_and_vectors_are_errors_not_guesses() {
    let vector = [0x7b, 0x01, 0, 0, 0, 1, 0];
    assert!(matches!(
        decode(&scalar(&vector)),
        Err(OsonError::NodeType { ty: 0x7b, .. })
    ));
    assert!(matches!(
        decode(&scalar(&[0x70])),
        Err(OsonError::NodeType { ty: 0x70, .. })
    ));
    assert_eq!(decode(b"{\"a\":1}"), Err(OsonError::NotOson));
    assert_eq!(
        decode(&[0xff, 0x4a, 0x5a, 0x02, 0, 0x16]),
        Err(OsonError::Version(2))
    );
}

#[test]
fn every_truncation_of_a_document_is_an_error() {
    for (name, _, oson) in vectors().into_iter().filter(|v| v.2.len() < 4000) {
        for end in 0..oson.len() {
            assert!(decode(&oson[..end]).is_err(), "{name} cut at {end}");
        }
    }
}

#[test]
fn corrupt_bytes_never_panic_and_loops_end() {
    // Every single-byte change of every small vector: any answer but a panic.
    for (_, _, oson) in vectors().into_iter().filter(|v| v.2.len() < 400) {
        for i in 0..oson.len() {
            for x in [0x00, 0x01, 0x18, 0x7f, 0x80, 0x98, 0xc0, 0xf8, 0xff] {
                let mut b = oson.clone();
                b[i] = x;
                let _ = decode(&b);
            }
        }
    }
    // An array whose child is itself: bounded, an error.
    let cyc = [
        0xff, 0x4a, 0x5a, 0x01, 0x21, 0x06, 0, 0, 0, 0, 4, 0, 0, 0xc0, 1, 0, 0,
    ];
    assert!(matches!(
        decode(&cyc),
        Err(OsonError::TooDeep | OsonError::TooLarge)
    ));
    // Arrays whose two children are the same array: exponential text if
    // unbounded.
    let mut t = Vec::new();
    for level in 0..40u16 {
        let next = (level + 1) * 6;
        t.extend_from_slice(&[0xc0, 2]);
        t.extend_from_slice(&next.to_be_bytes());
        t.extend_from_slice(&next.to_be_bytes());
    }
    t.push(0x30);
    let mut b = vec![0xff, 0x4a, 0x5a, 0x01, 0x21, 0x06, 0, 0, 0];
    b.extend_from_slice(&(t.len() as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0]);
    b.extend_from_slice(&t);
    assert_eq!(decode(&b), Err(OsonError::TooLarge));
}
