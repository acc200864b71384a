"""Checks a JUnit XML file against Jenkins' schema and GitLab's reading of it; prints JSON.

Used by core/engine/tests/render.rs: argv[1] is the JUnit file, argv[2] Jenkins' XSD
(tests/data/jenkins-junit/junit-10.xsd). Prints:

- "schema_errors": what xmlschema finds wrong against the XSD, once each `<testcase>`'s `file`
  attribute (which GitLab reads and the schema does not list) is removed;
- "gitlab_errors": what breaks the rules GitLab's unit test reports follow (its docs, "JUnit XML
  format specification"): it reads only `<testcase>` elements, keys a case by its classname and
  name and keeps the first of a key, takes `time` in seconds and `file` as a path in the
  repository, and gives a case one status, failed, error, skipped or success;
- "suites": per `<testsuite>`, its counting attributes and the same numbers counted from its
  cases as GitLab classifies them (a `<failure>` first, then an `<error>`, then `<skipped>`).
"""
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

import xmlschema

MAX_BYTES = 30 * 1024 * 1024

path, xsd = sys.argv[1], sys.argv[2]
tree = ET.parse(path)
root = tree.getroot()

gitlab_errors = []
if os.path.getsize(path) > MAX_BYTES:
    gitlab_errors.append("the file is larger than GitLab's 30 MB")

keys = set()
suites = []
for suite in root.iter("testsuite"):
    counted = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for case in suite.findall("testcase"):
        counted["tests"] += 1
        name = case.get("name") or ""
        classname = case.get("classname")
        where = f"{suite.get('name')}: {classname} / {name}"
        if not name.strip():
            gitlab_errors.append(f"{where}: a case without a name")
        if classname is None or not classname.strip():
            gitlab_errors.append(f"{where}: a case without a classname (GitLab's suite column)")
        key = (classname, name)
        if key in keys:
            gitlab_errors.append(f"{where}: a second case of the same classname and name")
        keys.add(key)
        results = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        if len(results) > 1:
            gitlab_errors.append(f"{where}: more than one result {results}")
        if "failure" in results:
            counted["failures"] += 1
        elif "error" in results:
            counted["errors"] += 1
        elif "skipped" in results:
            counted["skipped"] += 1
        time = case.get("time")
        if time is not None:
            try:
                seconds = float(time)
                if not math.isfinite(seconds) or seconds < 0:
                    raise ValueError(time)
            except ValueError:
                gitlab_errors.append(f"{where}: time {time!r} is not a number of seconds")
        file = case.get("file")
        if file is not None:
            if (
                not file
                or file.startswith("/")
                or "\\" in file
                or (len(file) > 1 and file[1] == ":")
                or ".." in file.split("/")
            ):
                gitlab_errors.append(f"{where}: file {file!r} is not a path in the repository")
    attributes = {
        key: int(suite.get(key, "0")) for key in ("tests", "failures", "errors", "skipped")
    }
    suites.append({"name": suite.get("name"), "attributes": attributes, "counted": counted})

# Jenkins' schema, but for the `file` attribute GitLab reads.
for case in root.iter("testcase"):
    case.attrib.pop("file", None)
schema = xmlschema.XMLSchema(xsd)
schema_errors = [
    f"{error.path}: {error.reason}" for error in schema.iter_errors(ET.tostring(root, encoding="unicode"))
]

print(json.dumps({"schema_errors": schema_errors, "gitlab_errors": gitlab_errors, "suites": suites}))
