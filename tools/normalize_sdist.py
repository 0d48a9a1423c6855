"""Rewrites an sdist (.tar.gz) in place so that two builds of one commit
are identical (called by tools/build_dist.sh):

    python3 tools/normalize_sdist.py dist/gameanim-0.1.0.tar.gz

Entries sorted by name; every mtime set to SOURCE_DATE_EPOCH (a
checkout's file times depend on when it was cloned and edited); owner root/root with
no names; modes 0644, or 0755 for folders and executables; the gzip header
carries no file name and the same time."""
import gzip
import io
import os
import sys
import tarfile


def normalize(path, epoch):
    with tarfile.open(path, "r:gz") as src:
        members = [(m, src.extractfile(m).read() if m.isfile() else None) for m in src.getmembers()]
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as dst:
        for m, data in sorted(members, key=lambda md: md[0].name):
            m.mtime = epoch
            m.uid = m.gid = 0
            m.uname = m.gname = ""
            m.mode = 0o755 if (m.isdir() or m.mode & 0o111) else 0o644
            m.pax_headers = {}
            dst.addfile(m, io.BytesIO(data) if data is not None else None)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=epoch) as gz:
        gz.write(raw.getvalue())
    os.replace(tmp, path)


if __name__ == "__main__":
    normalize(sys.argv[1], int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")))
