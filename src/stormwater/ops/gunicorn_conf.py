"""gunicorn's settings for ``stormwater serve`` (loaded as ``python:stormwater.ops.gunicorn_conf``, so a
stray ./gunicorn.conf.py in the working directory is never read). Bind, workers and timeout come from the
command line (``stormwater serve --help``). See docs/deploy.md."""
import os

wsgi_app = "stormwater.wsgi:application"
# Logs to stdout/stderr: systemd's journal keeps them (journalctl -u stormwater-web).
accesslog = "-"
errorlog = "-"
# Times in UTC, like nginx's (issue 28): Django sets the process's TZ to America/New_York.
logger_class = "stormwater.ops.logs.GunicornUTCLogger"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# Behind the reverse proxy the peer is the proxy: log the client it forwarded for as well.
access_log_format = '%(h)s %({x-forwarded-for}i)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s %(L)ss "%(a)s"'
# The addresses whose X-Forwarded-* headers are trusted (the proxy on this machine by default).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# A worker is replaced after about a thousand requests (bounded memory over months of uptime).
max_requests = 1000
max_requests_jitter = 100
graceful_timeout = 30
# Heartbeat files in memory, not on a possibly slow disk.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
control_socket_disable = True  # no runtime control socket in $HOME (not used; systemd signals the master)
