#!/usr/bin/env python3
"""Writes tests/fixtures/oson/vectors.json: documents encoded to OSON by
python-oracledb's thin driver (`pip install oracledb`), which needs no
database to encode. Each vector holds the OSON bytes as hex and the JSON
text cdcctl's decoder must give for them. Run from the repository root:

    python3 scripts/oson-vectors.py > tests/fixtures/oson/vectors.json
"""

import datetime
import decimal
import json
import sys

import oracledb
import oracledb.thin_impl as thin


def encoder():
    """A thin connection object that was never connected: encoding OSON
    is local to the driver."""
    return thin.ThinConnImpl.__new__(thin.ThinConnImpl)


def text(value):
    """The JSON text of a plain document, compact and in insertion order."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# (name, document, expected text or None for `text(document)`)
CASES = [
    ("scalar_string", "hello", None),
    ("scalar_empty_string", "", None),
    ("scalar_int", 42, None),
    ("scalar_negative_decimal", decimal.Decimal("-12.5"), "-12.5"),
    ("scalar_true", True, None),
    ("scalar_null", None, None),
    ("empty_object", {}, None),
    ("empty_array", [], None),
    ("flat_object", {"id": 7, "status": "open", "ok": False}, None),
    ("nested", {"a": {"b": [1, 2, {"c": None}]}, "d": []}, None),
    ("unicode", {"名前": "中文 ✓", "esc": "quote\" back\\ nl\n tab\t"}, None),
    ("numbers", [0, 1, -1, 100, 99.5, 0.001, -0.5, 123456789012345678,
                 decimal.Decimal("1E+30"), decimal.Decimal("1E-30"),
                 decimal.Decimal("3.14159265358979323846264338327950288")],
     "[0,1,-1,100,99.5,0.001,-0.5,123456789012345678,1E+30,1E-30,"
     "3.14159265358979323846264338327950288]"),
    ("repeated_keys", [{"k": 1, "v": "a"}, {"k": 2, "v": "b"}, {"v": "c"}], None),
    ("string_300", {"s": "x" * 300}, None),
    ("string_70000", ["y" * 70000], None),
    ("many_keys", {f"key{i}": i for i in range(300)}, None),
    ("wide_array", list(range(300)), None),
    ("date", {"d": datetime.date(2024, 1, 2)}, '{"d":"2024-01-02T00:00:00"}'),
    ("timestamp_whole", [datetime.datetime(2024, 1, 2, 3, 4, 5)],
     '["2024-01-02T03:04:05"]'),
    ("timestamp_fraction", [datetime.datetime(1999, 12, 31, 23, 59, 58, 123456)],
     '["1999-12-31T23:59:58.123456"]'),
    ("interval_ds", [datetime.timedelta(days=1, hours=2, seconds=3, microseconds=500000)],
     '["P1DT2H0M3.5S"]'),
    ("binary", {"raw": b"\x01\xab\xff"}, '{"raw":"01abff"}'),
]


def main():
    enc = encoder()
    out = []
    for name, doc, want in CASES:
        oson = enc.encode_oson(doc)
        # The driver reads back what it wrote (a check on the vector).
        back = enc.decode_oson(oson)
        assert back == doc or isinstance(doc, (datetime.date, dict, list)), name
        out.append({"name": name, "json": want if want is not None else text(doc),
                    "oson": oson.hex()})
    json.dump({"generator": f"python-oracledb {oracledb.__version__} OsonEncoder",
               "vectors": out}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
