"""Reads a JUnit XML file with junitparser (an independent reader) and prints what it saw as JSON.

Used by core/engine/tests/render.rs: argv[1] is the file. For each suite: its name, the counts from its
attributes, and each case with the tags and messages of its results.
"""
import json
import sys

from junitparser import JUnitXml

xml = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in xml:
    cases = []
    for case in suite:
        cases.append(
            {
                "name": case.name,
                "classname": case.classname,
                "results": [
                    {"tag": result._tag, "message": result.message, "type": result.type, "text": result.text}
                    for result in case.result
                ],
            }
        )
    suites.append(
        {
            "name": suite.name,
            "tests": suite.tests,
            "failures": suite.failures,
            "errors": suite.errors,
            "skipped": suite.skipped,
            "cases": cases,
        }
    )
print(json.dumps({"tests": xml.tests, "failures": xml.failures, "errors": xml.errors, "suites": suites}))
