"""An email backend for the crash tests, imported by the worker subprocesses (PYTHONPATH=tests/jobs).

Django's file backend (one file per message in EMAIL_FILE_PATH); with BLOCK_AFTER=n, after the n-th message
is written (the transport has accepted it) it writes ``blocked`` beside the messages and waits forever: the
test waits for that file (a condition, not a time), then kills the process at exactly that point."""
import os
import threading
from pathlib import Path

from django.core.mail.backends.filebased import EmailBackend as FileBackend


class EmailBackend(FileBackend):
    def send_messages(self, email_messages):
        n = super().send_messages(email_messages)
        block_after = int(os.environ.get("BLOCK_AFTER", "0") or 0)
        if block_after and len([p for p in Path(self.file_path).iterdir() if p.suffix == ".log"]) >= block_after:
            (Path(self.file_path).parent / "blocked").write_text(str(os.getpid()))
            threading.Event().wait()  # until killed
        return n
