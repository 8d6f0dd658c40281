"""ginsim's version: the installed distribution's, or ``0+unknown`` in a source tree that was
never installed."""

from importlib.metadata import PackageNotFoundError, version as _package_version

#: the distribution's name on the package index (``[project] name`` in pyproject.toml)
DISTRIBUTION = "ginsim-rummy"

try:
    __version__ = _package_version(DISTRIBUTION)
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
