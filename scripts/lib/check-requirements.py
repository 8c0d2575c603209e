#!/usr/bin/env python3
"""Exit 0 when every requirement of a pip requirements file is installed at a matching version."""
import sys
from importlib import metadata

try:
    from packaging.requirements import Requirement
except ImportError:  # packaging missing: let pip install everything
    sys.exit(1)


def main(path: str) -> int:
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            req = Requirement(line)
            try:
                version = metadata.version(req.name)
            except metadata.PackageNotFoundError:
                return 1
            if req.specifier and version not in req.specifier:
                return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(f"{__doc__.strip()}\n\n  {sys.argv[0]} REQUIREMENTS.txt")
        sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    sys.exit(main(sys.argv[1]))
