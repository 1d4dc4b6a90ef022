"""Logs in UTC (issue 28): nginx logs UTC; so do the system's own log lines and gunicorn's access and error logs,
whatever the server's or Django's time zone (Django sets the process's TZ to TIME_ZONE, America/New_York, which
made gunicorn's lines local time). One format for people (``text``) and one for log collectors (``json``).
Settings wire them (settings.py "errors reach a person"); ``gunicorn_conf`` names ``GunicornUTCLogger``."""
from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timezone

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s"


class UTCFormatter(logging.Formatter):
    """``2026-12-04T21:05:09Z LEVEL logger [pid] message``: ISO 8601 in UTC."""

    converter = time.gmtime

    def __init__(self, fmt: str = TEXT_FORMAT, datefmt: str = "%Y-%m-%dT%H:%M:%SZ"):
        super().__init__(fmt, datefmt)


class JSONFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, process, message, and the traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
               "level": record.levelname, "logger": record.name, "process": record.process,
               "message": record.getMessage()}
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def _gunicorn_logger_class():
    from gunicorn.glogging import Logger

    class GunicornUTCLogger(Logger):
        """gunicorn's logger with its access-log time (``%(t)s``) and error-log time in UTC."""

        datefmt = "[%Y-%m-%d %H:%M:%S +0000]"

        def now(self):
            return datetime.now(timezone.utc).strftime("[%d/%b/%Y:%H:%M:%S +0000]")

        def setup(self, cfg):
            super().setup(cfg)
            for log in (self.error_log, self.access_log):
                for h in log.handlers:
                    if h.formatter is not None:
                        h.formatter.converter = time.gmtime

    return GunicornUTCLogger


def __getattr__(name: str):  # gunicorn imports it only when serving: gunicorn stays out of every other process
    if name == "GunicornUTCLogger":
        return _gunicorn_logger_class()
    raise AttributeError(name)
