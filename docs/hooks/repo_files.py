"""MkDocs hook: publish the repository's own files at the paths they have in the repository.

The front page is ``README.md`` (its links into ``docs/`` lose that prefix); ``CHANGELOG.md``,
``LICENSE`` and ``CITATION.cff`` sit beside it; ``experiments/``, ``examples/`` and
``results/`` keep their paths, so a link such as ``results/knock_vs_gin/report.md`` or
``experiments/strong_players.md`` resolves both on the repository's web view and on the site,
and ``mkdocs build --strict`` checks it.  Run outputs that are not committed (Parquet data,
lock files, tuning databases) are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("experiments", "examples", "results")
TOP_FILES = ("CHANGELOG.md", "LICENSE", "CITATION.cff")
SKIP_PARTS = {"data", "games", "runs", "__pycache__", ".ipynb_checkpoints"}
SKIP_SUFFIXES = {".parquet", ".db", ".lock", ".tmp", ".pyc"}
_DOCS_LINK = re.compile(r"\]\(docs/")
#: a relative link from experiments/ or results/ up to the repository's docs/ folder
_UP_TO_DOCS = re.compile(r"\]\(((?:\.\./)+)docs/")


def _published(path: Path) -> bool:
    parts = set(path.relative_to(ROOT).parts)
    return path.is_file() and not parts & SKIP_PARTS and path.suffix not in SKIP_SUFFIXES \
        and not path.name.startswith(".") and path.name != "db-journal" and not path.name.endswith("-journal")


def on_files(files: Files, config) -> Files:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=_DOCS_LINK.sub("](", readme)))
    for name in TOP_FILES:
        files.append(File.generated(config, name, abs_src_path=str(ROOT / name)))
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if _published(path):
                files.append(File.generated(config, path.relative_to(ROOT).as_posix(), abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """In the repository's own files, a link up to ``docs/X`` points at the site's ``X``."""
    if page.file.src_uri.split("/")[0] in FOLDERS:
        return _UP_TO_DOCS.sub(r"](\1", markdown)
    return markdown
