"""ginsim's version: the installed distribution's, or ``0+unknown`` in a source tree that was
never installed."""

from importlib.metadata import PackageNotFoundError, version as _package_version

try:
    __version__ = _package_version("ginsim-rummy")  # the distribution's name (pyproject.toml)
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
