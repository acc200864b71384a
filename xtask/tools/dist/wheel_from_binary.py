"""Packs an already-built `verdict` binary into a wheel, around the `.dist-info` maturin wrote for
pyproject.toml (`maturin pep517 write-dist-info`: METADATA, and WHEEL with this machine's tag).

Usage: python wheel_from_binary.py DIST_INFO_DIR BINARY OUT_DIR; prints the wheel's path.

`cargo xtask dist --binary` and the packaging tests use it: `maturin build` compiles the binary
itself, resolving the CLI's features alone, which rebuilds most of the dependency graph after a
test build of the whole workspace. The wheel has the layout maturin gives a `bindings = "bin"`
wheel: the binary under `<name>-<version>.data/scripts/`, the metadata under `.dist-info/`, and a
RECORD of both.
"""

import base64
import email.parser
import hashlib
import os
import sys
import zipfile


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def read(path):
    with open(path, "rb") as file:
        return file.read()


def main():
    dist_info, binary, out = sys.argv[1:4]
    info_name = os.path.basename(os.path.normpath(dist_info))
    dist = info_name[: -len(".dist-info")]
    wheel_meta = read(os.path.join(dist_info, "WHEEL"))
    tag = email.parser.BytesParser().parsebytes(wheel_meta, headersonly=True)["Tag"]
    if not tag:
        raise SystemExit(f"error: {dist_info}/WHEEL names no tag")
    exe = "verdict.exe" if os.name == "nt" else "verdict"
    files = [(f"{dist}.data/scripts/{exe}", read(binary), 0o755)]
    # The metadata has folders too: the license files go under `licenses/`.
    for root, dirs, names in os.walk(dist_info):
        dirs.sort()
        rel = os.path.relpath(root, dist_info).replace(os.sep, "/")
        for name in sorted(names):
            path = name if rel == "." else f"{rel}/{name}"
            if path != "RECORD":
                files.append((f"{info_name}/{path}", read(os.path.join(root, name)), 0o644))
    record = f"{info_name}/RECORD"
    lines = [record_line(path, data) for path, data, _ in files] + [f"{record},,"]
    files.append((record, ("\n".join(lines) + "\n").encode(), 0o644))
    os.makedirs(out, exist_ok=True)
    wheel = os.path.join(out, f"{dist}-{tag}.whl")
    # The fastest compression: the wheel is installed once, locally, and thrown away.
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for path, data, mode in files:
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data, compresslevel=1)
    print(wheel)


if __name__ == "__main__":
    main()
