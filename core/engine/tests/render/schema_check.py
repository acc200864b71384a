"""Validates a GitLab Code Quality report or a reviewdog rdjson file against the schema its reader
publishes, with the `jsonschema` package, and prints what it found as JSON.

Used by core/engine/tests/render.rs and cli/tests/run.rs: argv[1] is `gitlab` or `rdjson`, argv[2]
the file. The schemas are in core/engine/tests/data/schemas/ (see the README there).

Prints {"errors": [...], "items": N}: no errors means the file is valid; N is the number of issues
or diagnostics read, so that a test can tell a valid empty report from one that was not read.

- gitlab: GitLab's parser reads a JSON array and validates each element against its
  `codeclimate.json` (draft-07), stopping at the first invalid one. Its documentation asks more
  than that schema checks (`check_name`, the five severities, a relative path, a line), and its
  report keeps one issue per fingerprint: those rules are checked too, from
  gitlab_documented.schema.json and below.
- rdjson: reviewdog's DiagnosticResult schema (draft-04), plus the one limit of its protobuf
  reader the schema does not state: lines and columns are 32-bit integers.
"""
import json
import sys
from pathlib import Path

import jsonschema

HERE = Path(__file__).resolve().parent
SCHEMAS = HERE.parent / "data" / "schemas"


def validator(schema):
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def messages(validator, instance, where):
    return [
        f"{where}{'/'.join(str(p) for p in error.absolute_path)}: {error.message}"
        for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    ]


def check_gitlab(raw):
    errors = []
    if raw.startswith(b"\xef\xbb\xbf"):
        errors.append("the file starts with a byte order mark, which GitLab's parser rejects")
    report = json.loads(raw.decode("utf-8-sig"))
    if not isinstance(report, list):
        return ["the report is not a JSON array"], 0
    published = validator(json.loads((SCHEMAS / "gitlab-codeclimate.json").read_text()))
    documented = validator(json.loads((HERE / "gitlab_documented.schema.json").read_text()))
    seen = {}
    for i, issue in enumerate(report):
        errors += messages(published, issue, f"[{i}] (GitLab's schema) ")
        errors += messages(documented, issue, f"[{i}] (GitLab's documentation) ")
        fingerprint = issue.get("fingerprint") if isinstance(issue, dict) else None
        if fingerprint in seen:
            errors.append(f"[{i}] has the fingerprint of [{seen[fingerprint]}]: GitLab would keep one")
        seen[fingerprint] = i
    return errors, len(report)


def check_rdjson(raw):
    result = json.loads(raw)
    schema = validator(json.loads((SCHEMAS / "reviewdog-DiagnosticResult.json").read_text()))
    errors = messages(schema, result, "")
    diagnostics = result.get("diagnostics", []) if isinstance(result, dict) else []
    for i, diagnostic in enumerate(diagnostics):
        start = (((diagnostic.get("location") or {}).get("range") or {}).get("start")) or {}
        for key in ("line", "column"):
            value = start.get(key)
            if value is not None and not (1 <= value < 2**31):
                errors.append(f"diagnostics/{i}/location/range/start/{key}: {value} is not a 1-based int32")
    return errors, len(diagnostics)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    raw = Path(path).read_bytes()
    errors, items = {"gitlab": check_gitlab, "rdjson": check_rdjson}[kind](raw)
    print(json.dumps({"errors": errors, "items": items}))


main()
