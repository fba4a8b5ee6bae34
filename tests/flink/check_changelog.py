"""Reads `cdcctl run` output with Flink's debezium-json format into typed
tables and compares Flink's changelog and final state with the simulator's
ground truth, value by value in the Flink type of each column.

Usage: check_changelog.py CASES.json

CASES.json lists the runs to check, all in one Flink session (a Flink start
costs more than most checks): [{"name": NAME, "dir": DIR, "output":
OUTPUT.jsonl, "truth": TRUTH.jsonl | "state": TABLE_STATE.jsonl, "schema":
SCHEMA.json, "ddl": DDL.jsonl}], paths relative to DIR.

Every line of OUTPUT must be a row change, bare or under its Kafka Connect
schema (`run --envelope connect-json`, read with Flink's
'debezium-json.schema-include'; each schema must then accept its payload as
Kafka Connect's JsonConverter does): `run --schema-changes DDL.jsonl`
keeps schema changes in a file of their own, as Debezium keeps them off the
tables' topics, and a DDL envelope in OUTPUT is a failure. OUTPUT's lines go
to one folder per table (what a topic per table gives a Kafka reader) and
each is read whole by Flink.

With "state" the truth is `sim truth --table-state` (the tables' contents at
the run's --until-scn, after a snapshot): Flink's final state must equal it,
less the rows partition DDL removed (no change reports those), less tables
DDL.jsonl shows dropped, and leaving out values the output holds as the
unavailable placeholder.

SCHEMA.json: {"tables": {"OWNER.TABLE": {"columns": [["NAME", "FLINK TYPE"],
...], "key": ["ID", ...]}}}. Exit 0 when every table of every run matches,
1 otherwise.
"""

import base64
import collections
import datetime
import decimal
import json
import os
import sys
import tempfile

from pyflink.common import Configuration
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.common.types import RowKind
from pyflink.java_gateway import get_gateway
from pyflink.table.serializers import ArrowSerializer
from pyflink.table.types import create_arrow_schema


def kind_of(flink_type):
    t = flink_type.upper()
    if t.startswith("DECIMAL"):
        return "decimal"
    if t.startswith("TIMESTAMP_LTZ"):
        return "ltz"
    if t.startswith("TIMESTAMP"):
        return "timestamp"
    if t == "BYTES":
        return "bytes"
    return "string"


def parse_time(text):
    """ISO text with up to 9 fraction digits, as Python keeps it (micros)."""
    text = text.replace("T", " ").rstrip("Z")
    if "." in text:
        head, frac = text.split(".", 1)
        frac = (frac + "000000")[:6]
        text = head + "." + frac
        return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f")
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def typed(kind, value, scale=None):
    """A JSON string from the truth (or Flink's collected value), in the
    column's type."""
    if value is None:
        return None
    if kind == "decimal":
        d = decimal.Decimal(str(value))
        return d.quantize(decimal.Decimal(1).scaleb(-scale)) if scale is not None else d
    if kind in ("timestamp", "ltz"):
        if isinstance(value, datetime.datetime):
            return value.replace(tzinfo=None)
        return parse_time(value)
    if kind == "bytes":
        return base64.b64decode(value)
    return value


def scale_of(flink_type):
    t = flink_type.upper().replace(" ", "")
    if t.startswith("DECIMAL(") and "," in t:
        return int(t[t.index(",") + 1 : t.index(")")])
    return None


PLACEHOLDER = "__debezium_unavailable_value"


def read_output(output):
    """OUTPUT's row changes by table, and whether they come under a Kafka
    Connect schema (`run --envelope connect-json`): then each line's schema
    must accept its payload as Kafka Connect's JsonConverter reads it."""
    per_table = collections.defaultdict(list)
    lines_read = 0
    wrapped = False
    for number, line in enumerate(open(output, encoding="utf-8"), 1):
        env = json.loads(line)
        lines_read += 1
        if "schema" in env and "payload" in env:
            wrapped = True
            conforms(env["schema"], env["payload"], f"{output}:{number}")
            env = env["payload"]
        if "op" not in env:
            raise SystemExit(f"{output}:{number}: a schema-change event among the row changes")
        src = env["source"]
        per_table[f'{src["schema"]}.{src["table"]}'].append(line)
    form = "under its Kafka Connect schema" if wrapped else "bare"
    print(f"{lines_read} lines, every one a row change, {form}")
    return per_table, wrapped


CONNECT_TYPES = {
    "string": lambda v: isinstance(v, str),
    "bytes": lambda v: isinstance(v, str) and base64.b64decode(v, validate=True) is not None,
    "int32": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "int64": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float64": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "struct": lambda v: isinstance(v, dict),
}


def conforms(schema, value, at):
    """What JsonConverter (schemas.enable=true) requires of a value: null
    only where the schema is optional, and each value of its schema type."""
    if value is None:
        if not schema.get("optional"):
            raise SystemExit(f"{at}: null for a required {schema}")
        return
    check = CONNECT_TYPES.get(schema.get("type"))
    if check is None or not check(value):
        raise SystemExit(f"{at}: {value!r} is not a {schema.get('type')} ({schema.get('name')})")
    for field in schema.get("fields", []) if schema["type"] == "struct" else []:
        conforms(field, value.get(field["field"]), f'{at}.{field["field"]}')


def read_ddl(ddl_path):
    dropped = set()
    ddl = 0
    if ddl_path and not os.path.exists(ddl_path):
        ddl_path = None
    for line in open(ddl_path or os.devnull, encoding="utf-8"):
        env = json.loads(line)
        env = env.get("payload", env) if "schema" in env else env
        ddl += 1
        if env.get("ddl", "").upper().startswith("DROP TABLE"):
            dropped.add(f'{env["source"]["schema"]}.{env["source"]["table"]}')
    if ddl:
        print(f"{ddl} schema-change events in {ddl_path}")
    return dropped


def read_truth(truth_path, state_path):
    truth = collections.defaultdict(list)
    table_state = collections.defaultdict(list)
    removed = collections.defaultdict(list)
    if state_path:
        for line in open(state_path, encoding="utf-8"):
            entry = json.loads(line)
            name = f'{entry["schema"]}.{entry["table"]}'
            if "removed_at_scn" in entry:
                removed[name].append(entry["key"])
            else:
                table_state[name].append(entry["row"])
    for line in open(truth_path or os.devnull, encoding="utf-8"):
        env = json.loads(line)
        if "op" not in env:
            continue
        src = env["source"]
        truth[f'{src["schema"]}.{src["table"]}'].append(env)
    return truth, table_state, removed


def flink_changelog(t_env, table, folder, columns, kinds, wrapped):
    """Flink's changelog of one table's lines: (row kind, values) pairs."""
    include = "true" if wrapped else "false"
    ddl_cols = ",\n".join(f"`{c}` {t}" for c, t in columns)
    t_env.execute_sql(
        f"""CREATE TABLE {table} ({ddl_cols}) WITH (
            'connector' = 'filesystem',
            'path' = 'file://{folder}',
            'format' = 'debezium-json',
            'debezium-json.schema-include' = '{include}',
            'debezium-json.ignore-parse-errors' = 'false',
            'debezium-json.timestamp-format.standard' = 'ISO-8601')"""
    )
    # Timestamps and BYTES cross to Python as text: PyFlink's own
    # conversion keeps milliseconds only (and fails on TIMESTAMP_LTZ);
    # Flink's CAST writes every digit, TIMESTAMP_LTZ in the session's
    # zone (UTC). BYTES come as base64.
    select = []
    for c, _ in columns:
        k = kinds[c]
        if k in ("ltz", "timestamp"):
            select.append(f"CAST(`{c}` AS STRING) AS `{c}`")
        elif k == "bytes":
            select.append(f"TO_BASE64(`{c}`) AS `{c}`")
        else:
            select.append(f"`{c}`")
    query = t_env.sql_query(
        f"SELECT `{OP}`, {', '.join(select)} "
        f"FROM TO_CHANGELOG(input => TABLE {table}, op => DESCRIPTOR(`{OP}`))"
    )
    for values in arrow_rows(query):
        # TO_CHANGELOG names each row's kind as RowKind does.
        yield RowKind[values[0]], {c: values[1 + i] for i, (c, _) in enumerate(columns)}


# The changelog's row kind, as a column of its own (Flink's TO_CHANGELOG):
# an append-only table crosses from the JVM in Arrow batches, where
# collecting a changelog asks the JVM for each field of each row.
OP = "cdcctl_row_kind"


def arrow_rows(query):
    """The rows of an append-only table in order, each a tuple of Python
    values: PyFlink's to_pandas() collection (Arrow batches, PyFlink's own
    serializer), read without pandas, which would turn an integer column
    holding NULL into floats."""
    gateway = get_gateway()
    j_table = query._j_table
    batch_rows = j_table.getTableEnvironment().getConfig().get(
        gateway.jvm.org.apache.flink.python.PythonOptions.MAX_ARROW_BATCH_SIZE
    )
    batches = gateway.jvm.org.apache.flink.table.runtime.arrow.ArrowUtils.collectAsPandasDataFrame(
        j_table, batch_rows
    )
    schema = query.get_schema()
    serializer = ArrowSerializer(
        create_arrow_schema(schema.get_field_names(), schema.get_field_data_types()),
        schema.to_row_data_type(),
        None,
    )
    for batch in serializer.load_from_iterator(batches):
        columns = [batch.column(i).to_pylist() for i in range(batch.num_columns)]
        yield from zip(*columns)


def check_case(t_env, number, case):
    """One run's output against its truth; True when every table matches."""
    os.chdir(case["dir"])
    print(f"== {case['name']}")
    state_path, truth_path = case.get("state"), case.get("truth")
    schema = json.load(open(case["schema"]))["tables"]
    per_table, wrapped = read_output(case["output"])
    dropped = read_ddl(case.get("ddl"))
    truth, table_state, removed = read_truth(truth_path, state_path)

    failed = False
    work = tempfile.mkdtemp(prefix="cdcctl-flink-")
    for index, (name, spec) in enumerate(sorted(schema.items())):
        lines = per_table.get(name, [])
        if not lines:
            continue
        folder = os.path.join(work, f"t{index}")
        os.makedirs(folder)
        with open(os.path.join(folder, "part.json"), "w", encoding="utf-8") as f:
            f.writelines(lines)
        columns = spec["columns"]
        kinds = {c: kind_of(t) for c, t in columns}
        scales = {c: scale_of(t) for c, t in columns}
        key = spec["key"] or [c for c, _ in columns]

        def row_of(values):
            return tuple(typed(kinds[c], values.get(c), scales[c]) for c, _ in columns)

        def key_of(row):
            idx = [i for i, (c, _) in enumerate(columns) if c in key]
            return tuple(row[i] for i in idx)

        flink_state = {}
        changes = 0
        table = f"c{number}_t{index}"
        for kind, values in flink_changelog(t_env, table, folder, columns, kinds, wrapped):
            row = row_of(values)
            changes += 1
            if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER):
                flink_state[key_of(row)] = row
            else:
                flink_state.pop(key_of(row), None)

        if state_path and name in dropped:
            print(f"{name}: dropped during the run ({changes} changelog rows read); no contents to compare")
            continue
        if state_path:
            # The table state writes values in the envelope's forms.
            want = {key_of(row_of(dict(r))): row_of(dict(r)) for r in table_state.get(name, [])}
            for k in removed.get(name, []):
                flink_state.pop(key_of(row_of(k)), None)
            unavailable = {PLACEHOLDER, PLACEHOLDER.encode()}
            differ = []
            for k in set(want) | set(flink_state):
                got, exp = flink_state.get(k), want.get(k)
                if got is None or exp is None:
                    differ.append(k)
                    continue
                if any(g != e and g not in unavailable for g, e in zip(got, exp)):
                    differ.append(k)
            if differ:
                failed = True
                print(
                    f"{name}: final state {len(flink_state)} rows against {len(want)} at the SCN; "
                    f"{len(differ)} keys differ",
                    file=sys.stderr,
                )
                for k in differ[:3]:
                    print(f"  key {k}: flink {flink_state.get(k)} state {want.get(k)}", file=sys.stderr)
            else:
                print(f"{name}: {changes} changelog rows, final state of {len(want)} rows equals the table")
            continue

        want_state = {}
        want_changes = 0
        for env in truth.get(name, []):
            before, after = env.get("before"), env.get("after")
            if before is not None:
                want_changes += 1
                want_state.pop(key_of(row_of(before)), None)
            if after is not None:
                want_changes += 1
                want_state[key_of(row_of(after))] = row_of(after)

        if changes != want_changes or flink_state != want_state:
            failed = True
            missing = [k for k in want_state if flink_state.get(k) != want_state[k]][:3]
            print(
                f"{case['name']} {name}: Flink read {changes} changelog rows, truth has {want_changes}; "
                f"final state {len(flink_state)} rows against {len(want_state)}",
                file=sys.stderr,
            )
            for k in missing:
                print(f"  key {k}: flink {flink_state.get(k)} truth {want_state[k]}", file=sys.stderr)
        else:
            print(f"{name}: {changes} changelog rows, final state of {len(flink_state)} rows equals the truth")
    return not failed


def main():
    cases = json.load(open(sys.argv[1]))
    config = Configuration()
    config.set_string("table.local-time-zone", "UTC")
    config.set_string("parallelism.default", "1")
    settings = EnvironmentSettings.new_instance().in_streaming_mode().with_configuration(config).build()
    t_env = TableEnvironment.create(settings)
    failed = [c["name"] for n, c in enumerate(cases) if not check_case(t_env, n, c)]
    if failed:
        print(f"differs from the truth: {', '.join(failed)}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
