#!/usr/bin/env python3
"""Writes the license texts of the code linked into the release binary, to stdout.

    scripts/third-party-notices.py LINK_FILE_LIST CHECKOUTS_DIR TOOLCHAIN_LICENSE

scripts/release.sh runs it. A package's license goes in when any of its modules is in the
binary: SwiftPM's link file list for castsim names each object under `<Module>.build/`,
and a checkout's modules are the folders of its `Sources/`; with it its NOTICE.txt and the
licenses in those modules' folders. Then the Swift toolchain's license, for the Swift
runtime and Foundation linked in. Standard library only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LICENSE_NAMES = ("LICENSE.txt", "LICENSE", "LICENSE.md", "COPYING")


def linked_modules(link_file_list: Path) -> set[str]:
    modules = set()
    for line in link_file_list.read_text().splitlines():
        match = re.search(r"/([^/]+)\.build/", line.strip().strip('"'))
        if match:
            modules.add(match[1])
    return modules


def package_modules(checkout: Path) -> set[str]:
    sources = checkout / "Sources"
    if not sources.is_dir():
        return set()
    # SwiftPM names a module's build folder after the target, with - as _.
    return {folder.name.replace("-", "_") for folder in sources.iterdir() if folder.is_dir()}


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    link_file_list, checkouts, toolchain_license = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    modules = linked_modules(link_file_list)
    if not modules:
        print(f"third-party-notices: no modules in {link_file_list}", file=sys.stderr)
        return 1
    sections = []
    for checkout in sorted(checkouts.iterdir(), key=lambda path: path.name.lower()):
        used = sorted(package_modules(checkout) & modules)
        if not used:
            continue
        license_file = next((checkout / name for name in LICENSE_NAMES if (checkout / name).is_file()), None)
        if license_file is None:
            print(f"third-party-notices: {checkout.name} is linked in ({', '.join(used)}) but has no license file",
                  file=sys.stderr)
            return 1
        # Its NOTICE (Apache 2.0 asks for it to travel along), and the licenses of code a
        # module vendors (NIO's llhttp).
        extra = [checkout / "NOTICE.txt"] + [license for module in used
                                             for license in sorted((checkout / "Sources" / module).glob("LICENSE*"))]
        texts = [license_file.read_text(errors="replace")] + [path.read_text(errors="replace") for path in extra if path.is_file()]
        sections.append((checkout.name, ", ".join(used), "\n\n".join(text.rstrip() for text in texts)))
    sections.append(("The Swift toolchain", "the Swift runtime and Foundation, linked in",
                     toolchain_license.read_text(errors="replace")))
    print("Third-party code in this castsim binary, and its licenses.\n")
    for name, used, text in sections:
        print("=" * 78)
        print(f"{name} ({used})")
        print("=" * 78)
        print(text.rstrip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
