"""The ``--log-level`` option every MCP server takes, and the stderr logging it sets up (stdout is
the MCP stdio channel, so logs never go there)."""

from __future__ import annotations

import argparse
import logging
import sys

LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def add_log_level_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log-level", default="WARNING", type=str.upper, choices=LOG_LEVELS, help="stderr log level.")


def configure_logging(level: str) -> None:
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
