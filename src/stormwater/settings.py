"""Settings from the environment (healthchecks-style typed helpers that fail loudly).

The environment may come from `.env` files: ./.env, then $STORMWATER_DATA_DIR/.env; a variable already in
the environment wins (stormwater.ops.startup, docs/deploy.md).

STORMWATER_DATA_DIR  folder for the SQLite database, uploads, static files, town.toml and the dev secret
                     (default ./data); it must be writable (checked at start)
STORMWATER_ENV       "production" refuses DEBUG, a weak SECRET_KEY and a missing ALLOWED_HOSTS
DATABASE_URL         e.g. postgres://user:pw@127.0.0.1:5432/stormwater; SQLite (WAL) when unset. On PostgreSQL the
                     runtime role: it owns no table (docs/security.md)
MIGRATE_DATABASE_URL PostgreSQL only, set only where migrations run: the owner role; `stormwater migrate` connects
                     with it and grants DATABASE_URL's role what running needs (docs/security.md)
SECRET_KEY           required when STORMWATER_ENV=production; in development one is generated
                     into the data folder (never into the repository)
DEBUG                "1" to turn on (off by default)
ALLOWED_HOSTS        comma-separated (default 127.0.0.1,localhost,::1; required in production)
EMAIL_BACKEND        Django email backend (console by default); EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER,
                     EMAIL_HOST_PASSWORD, EMAIL_USE_TLS for SMTP
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url

# ---- deploy (issue 14): .env files first, so that everything below sees them ----
from stormwater.ops import startup

ENV_FILES = startup.load_env_files()  # ./.env, then $STORMWATER_DATA_DIR/.env; the environment wins
# ---- end deploy ----


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in {"1", "true", "yes", "on"}:
        return True
    if raw.lower() in {"0", "false", "no", "off"}:
        return False
    raise startup.StartupError(f"{name}={raw!r}: expected a boolean (1/0, true/false)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise startup.StartupError(f"{name}={raw!r}: expected a whole number") from None


def env_list(name: str, default: str) -> list[str]:
    return [x.strip() for x in os.environ.get(name, default).split(",") if x.strip()]


BASE_DIR = Path(__file__).resolve().parent
DATA_DIR = Path(os.environ.get("STORMWATER_DATA_DIR") or (Path.cwd() / "data")).resolve()
PRODUCTION = os.environ.get("STORMWATER_ENV", "development") == "production"
DEBUG = env_bool("DEBUG", False)

# ---- deploy (issue 14): the data folder must be a writable folder with room (a clear message, not a
# traceback from the first write), then the secret key, then production's refusals ----
if not startup.WRITE_NOTHING:
    startup.check_data_dir(DATA_DIR)
DEV_SECRET_KEY_FILE = DATA_DIR / "dev-secret-key"


def _secret_key() -> tuple[str, str]:
    """(key, where it came from). The key signs sessions and derives the sign-up code printed on every
    bill (portal/codes.py); `stormwater backup` keeps a copy (docs/deploy.md)."""
    key = os.environ.get("SECRET_KEY", "")
    if key:
        return key, "environment"
    if PRODUCTION:
        return "", "missing"
    if startup.WRITE_NOTHING and not DEV_SECRET_KEY_FILE.exists():
        # --help and the like sign nothing: a throw-away key, and nothing written (issue 28)
        return secrets.token_urlsafe(50), "throw-away (nothing written)"
    if not DEV_SECRET_KEY_FILE.exists():
        DEV_SECRET_KEY_FILE.write_text(secrets.token_urlsafe(50))
        DEV_SECRET_KEY_FILE.chmod(0o600)
    return DEV_SECRET_KEY_FILE.read_text().strip(), "data folder"


SECRET_KEY, SECRET_KEY_SOURCE = _secret_key()
# Paying online (issue 25, receivables/online.py): the key shared with the town's payment processor that signs the
# hand-off and the processor's return (HMAC-SHA256). Unset: the processor's returns cannot be verified and are
# refused (the built-in TEST page signs with a key derived from SECRET_KEY).
PAYMENT_PROCESSOR_SECRET = os.environ.get("PAYMENT_PROCESSOR_SECRET", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,::1,testserver")
if PRODUCTION:
    startup.refuse_production(startup.production_problems(
        debug=DEBUG, secret_key=SECRET_KEY, allowed_hosts_raw=os.environ.get("ALLOWED_HOSTS")))
# ---- end deploy ----

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    # Two-factor sign-in (issue 14, stormwater.accounts.twofactor): authenticator-app (TOTP) devices and
    # single-use recovery codes (django-otp's static devices).
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "stormwater.accounts",
    "stormwater.audit",
    "stormwater.parcels",
    "stormwater.utility",
    "stormwater.receivables",
    "stormwater.cashier",  # issue 17: the Collector's office (receipts, batches, deposits, refunds, lien certificates)
    "stormwater.fund",
    "stormwater.cases",
    "stormwater.permits",
    "stormwater.construction",
    "stormwater.stewardship",
    "stormwater.review",
    "stormwater.workbench",
    "stormwater.relief",
    "stormwater.gis",
    "stormwater.imports",  # issue 20: the one import pipeline and the record of every import
    "stormwater.golive",  # issue 32: the open books and cases brought in from the old systems
    "stormwater.portal",
    "stormwater.notices",
    "stormwater.web",
    # The pages that gather every app (home, town map, a parcel's whole record, the menu, demo_load): above them all.
    "stormwater.pages",
    "stormwater.workqueue",  # issue 16: after every app whose workqueue.py it imports (WorkqueueConfig.ready)
    # Background jobs (docs/jobs.md): Django's task API and its database backend, our Job records on top.
    "django_tasks",
    "django_tasks_db",
    "stormwater.jobs",
    "stormwater.api",
    "stormwater.ops",  # serve, backup, restore (docs/deploy.md)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "stormwater.web.nulguard.NulParameterMiddleware",  # NUL in a parameter → 400 (PostgreSQL cannot store it)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "stormwater.api.middleware.ApiTokenMiddleware",  # Authorization: Bearer on /api/ (issue 15, docs/api.md)
    "django.contrib.messages.middleware.MessageMiddleware",
    "stormwater.accounts.middleware.IdleTimeoutMiddleware",  # staff sessions end when idle (town.toml)
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "stormwater.web.security.ContentSecurityPolicyMiddleware",  # CSP, Referrer-Policy (docs/portal.md)
    "stormwater.cases.middleware.CaseNumberRedirectMiddleware",  # old case numbers redirect (issue 16)
]

ROOT_URLCONF = "stormwater.urls"
CSRF_FAILURE_VIEW = "stormwater.api.views.csrf_failure"  # JSON under /api/ (issue 15)
WSGI_APPLICATION = "stormwater.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "stormwater.pages.context.nav",
            ],
        },
    }
]


def _database(url: str) -> dict:
    db = dj_database_url.parse(url, conn_max_age=60)
    if db["ENGINE"] == "django.db.backends.postgresql":
        # flush lifts the append-only guards for a reset and is refused in production (stormwater.dbbackends)
        db["ENGINE"] = "stormwater.dbbackends.postgresql"
    return db


def _databases() -> dict:
    url = os.environ.get("DATABASE_URL")
    if url:
        return {"default": _database(url)}
    if not startup.WRITE_NOTHING:
        DATA_DIR.mkdir(parents=True, exist_ok=True)
    return {
        "default": {
            "ENGINE": "stormwater.dbbackends.sqlite3",
            "NAME": DATA_DIR / "stormwater.sqlite3",
            # WAL lets the web app read while a bill run writes; IMMEDIATE takes the write lock at
            # BEGIN so two writers queue instead of failing with "database is locked" mid-transaction.
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
            },
            "TEST": {"NAME": ":memory:"},
        }
    }


DATABASES = _databases()
# The owner role, for `stormwater migrate` only (audit/management/commands/migrate.py; docs/security.md).
MIGRATE_DATABASE = _database(os.environ["MIGRATE_DATABASE_URL"]) if os.environ.get("MIGRATE_DATABASE_URL") else None
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Every password set through the application (sign-up, `stormwater user`, change, reset) passes these (issue 14):
# at least 12 characters, not like the username, name or e-mail address, not a common password, not all digits.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator",
     "OPTIONS": {"user_attributes": ("username", "first_name", "last_name", "email")}},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]


def _totp_issuer(device) -> str:
    """The name an authenticator app shows next to the code: the town's (town.toml), read when enrolling."""
    from stormwater.townconfig import town_config

    return f"{town_config().name} Stormwater"


OTP_TOTP_ISSUER = _totp_issuer

LANGUAGE_CODE = "en-us"
TIME_ZONE = "America/New_York"
# One date format for people ("Dec 2, 2026"; stormwater/formats/en/formats.py, issue 16); forms still read ISO.
FORMAT_MODULE_PATH = ["stormwater.formats"]
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
# ---- deploy (issue 14): `stormwater serve` collects the static files into the data folder before it
# starts; WhiteNoise serves them from there (and, outside production, straight from the app folders too,
# so the development server and the tests need no collecting) ----
STATIC_ROOT = DATA_DIR / "static"
if not startup.WRITE_NOTHING:
    STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise expects the folder at start, even before the first collecting
MEDIA_ROOT = DATA_DIR / "media"
WHITENOISE_USE_FINDERS = not PRODUCTION
# ---- end deploy ----

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Production is served over HTTPS only (portal, docs/portal.md): HSTS for a year; behind a TLS-terminating
# proxy set SECURE_PROXY_SSL_HEADER_ON=1 so Django trusts its X-Forwarded-Proto.
SECURE_HSTS_SECONDS = 31536000 if PRODUCTION else 0
SECURE_SSL_REDIRECT = PRODUCTION and env_bool("SECURE_SSL_REDIRECT", True)
if env_bool("SECURE_PROXY_SSL_HEADER_ON", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# ---- deploy (issue 14): HSTS for this host only unless the town says otherwise: includeSubDomains and
# preload bind every host of the town's domain, a decision for whoever runs that domain (docs/deploy.md);
# so `check --deploy` (run by `stormwater serve`) does not warn about them ----
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SILENCED_SYSTEM_CHECKS = ["security.W005", "security.W021"]
# ---- end deploy ----
CSP_REPORT_ONLY = env_bool("CSP_REPORT_ONLY", False)
# Uploads (cases.services.case_document_add): checked by content and size; UPLOAD_SCAN_HOOK is the dotted path
# of a virus-scan callable hook(upload) -> reason-to-refuse or None (unset: no scan).
UPLOAD_SCAN_HOOK = os.environ.get("UPLOAD_SCAN_HOOK", "")
# ---- shared cache (issue 27): the login, sign-up and password-reset throttles count in Django's database cache,
# one table in the application's database (SQLite or PostgreSQL) that every server worker and process shares — a
# per-process memory cache let each worker count on its own (8 wrong passwords over two workers never locked).
# The table is made by a migration (web/migrations/0002_errors_cache_table.py), so `stormwater migrate` makes it.
CACHE_TABLE = "stormwater_cache"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": CACHE_TABLE}}
# ---- end shared cache ----
# Login throttling (stormwater.portal.throttle): failures per username + client IP within the window, and
# failures from one client IP over any usernames (password spraying); password-reset requests per IP.
LOGIN_THROTTLE_FAILURES = int(os.environ.get("LOGIN_THROTTLE_FAILURES", "5"))
LOGIN_THROTTLE_IP_FAILURES = int(os.environ.get("LOGIN_THROTTLE_IP_FAILURES", "20"))
LOGIN_THROTTLE_WINDOW_SECONDS = int(os.environ.get("LOGIN_THROTTLE_WINDOW_SECONDS", "900"))
PASSWORD_RESET_THROTTLE_REQUESTS = int(os.environ.get("PASSWORD_RESET_THROTTLE_REQUESTS", "5"))

# Background jobs (docs/jobs.md): the queue lives in the database (SQLite or PostgreSQL, no other server);
# `stormwater worker` runs it. A job whose worker's heartbeat is older than JOBS_STALE_SECONDS (on another
# host; on the same host a dead process is seen at once) is taken over by the next worker that starts.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
JOBS_STALE_SECONDS = int(os.environ.get("JOBS_STALE_SECONDS", "900"))
# A list's Excel download of more rows than this is made by a job (issue 29; web/listexports.py, docs/lists.md); CSV streams.
LIST_EXPORT_JOB_ROWS = int(os.environ.get("LIST_EXPORT_JOB_ROWS", "5000"))

EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
# For EMAIL_BACKEND=django.core.mail.backends.filebased.EmailBackend (one file per message; tests, demos).
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", str(DATA_DIR / "sent-mail"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "stormwater@longmeadow.example")
# ---- deploy (issue 14): SMTP (EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend; docs/deploy.md) ----
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)   # STARTTLS (port 587)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)   # TLS from the start (port 465)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30)
SERVER_EMAIL = os.environ.get("SERVER_EMAIL", DEFAULT_FROM_EMAIL)
# ---- end deploy ----

TOWN_NAME = os.environ.get("TOWN_NAME", "Town of Longmeadow")

# GIS maps: a background tile URL such as https://tile.openstreetmap.org/{z}/{x}/{y}.png (blank = none;
# the maps draw the stored polygons and work offline without it), and its attribution text. In production the
# default is MassGIS's statewide color orthophotos (USGS 2019, a free cached tile service, issue 16); set
# GIS_TILE_URL= (empty) to draw without a basemap, or another service. Development and tests fetch no tiles.
MASSGIS_ORTHO_TILES = ("https://tiles.arcgis.com/tiles/hGdibHYSPO59RG1h/arcgis/rest/services/USGS_Orthos_2019/"
                       "MapServer/tile/{z}/{y}/{x}")
GIS_TILE_URL = os.environ.get("GIS_TILE_URL", MASSGIS_ORTHO_TILES if PRODUCTION else "")
GIS_TILE_ATTRIBUTION = os.environ.get("GIS_TILE_ATTRIBUTION",
                                      "Imagery: MassGIS / USGS color orthophotos 2019" if GIS_TILE_URL else "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # ---- deploy (issue 14): a request for a host not in ALLOWED_HOSTS (scanners hitting the server's
    # address) is answered 400 and shows in the access log; no traceback in the journal for each ----
    "loggers": {"django.security.DisallowedHost": {"handlers": [], "propagate": False},
                # ---- one-line 403/404 (issue 27): a refused or missing page is logged as one line, without the
                # traceback of its PermissionDenied/Http404 (web.logfilters); a 500 keeps its traceback ----
                "django.request": {"filters": ["client_errors_one_line"]}},
    "filters": {"client_errors_one_line": {"()": "stormwater.web.logfilters.ClientErrorsOneLine"}},
    # ---- end one-line 403/404 ----
}

# ---- ops (issue 28): errors reach a person, logs in UTC, readiness windows (docs/deploy.md "Logs", "Monitoring") --
# ADMINS               "Name <addr>, addr2": every server error (500) and every ERROR log line is e-mailed to them
#                      (through EMAIL_BACKEND, from SERVER_EMAIL)
# LOG_FORMAT           text (default: "2026-12-04T21:05:09Z LEVEL logger [pid] message") or json (one object a line)
# LOG_FILE             also write the log to this file, rotated at LOG_FILE_MAX_MB (10) keeping LOG_FILE_COUNT (10)
# SENTRY_DSN           also report errors to Sentry (needs the optional sentry-sdk: pip install
#                      'longmeadow-stormwater[sentry]'); unset: nothing leaves the server
# READYZ_WORKER_SECONDS, READYZ_BACKUP_HOURS, READYZ_DAILY_HOURS: /readyz's windows (120, 26, 26; 0 turns one off)
def _admins(raw: str) -> list[tuple[str, str]]:
    from email.utils import getaddresses

    admins = [(name, addr) for name, addr in getaddresses([raw]) if "@" in addr]
    if raw.strip() and not admins:
        raise startup.StartupError(f"ADMINS={raw!r}: expected e-mail addresses, e.g. "
                                   "ADMINS=Town IT <it@longmeadow.example>, dpw@longmeadow.example")
    return admins


ADMINS = _admins(os.environ.get("ADMINS", ""))
EMAIL_SUBJECT_PREFIX = "[Stormwater] "  # the error mails to ADMINS
READYZ_WORKER_SECONDS = env_int("READYZ_WORKER_SECONDS", 120)
READYZ_BACKUP_HOURS = env_int("READYZ_BACKUP_HOURS", 26)
READYZ_DAILY_HOURS = env_int("READYZ_DAILY_HOURS", 26)
_log_format = os.environ.get("LOG_FORMAT", "text")
if _log_format not in ("text", "json"):
    raise startup.StartupError(f"LOG_FORMAT={_log_format!r}: expected text or json")
LOGGING["formatters"] = {**LOGGING.get("formatters", {}), "ops": {
    "()": "stormwater.ops.logs.JSONFormatter" if _log_format == "json" else "stormwater.ops.logs.UTCFormatter"}}
LOGGING["handlers"]["console"]["formatter"] = "ops"
_root_handlers = LOGGING["root"]["handlers"]
if os.environ.get("LOG_FILE"):
    LOGGING["handlers"]["file"] = {
        "class": "logging.handlers.RotatingFileHandler", "filename": os.environ["LOG_FILE"], "formatter": "ops",
        "maxBytes": env_int("LOG_FILE_MAX_MB", 10) * 1024 * 1024, "backupCount": env_int("LOG_FILE_COUNT", 10),
        "encoding": "utf-8", "delay": True}
    _root_handlers.append("file")
if ADMINS:
    LOGGING["handlers"]["mail_admins"] = {"class": "django.utils.log.AdminEmailHandler", "level": "ERROR"}
    _root_handlers.append("mail_admins")
# Django's own "django" logger mails ADMINS too (its default configuration): it propagates to the root instead,
# so that each error is mailed once.
LOGGING.setdefault("loggers", {})["django"] = {"handlers": [], "level": "INFO", "propagate": True}
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    try:
        import sentry_sdk
    except ImportError:
        raise startup.StartupError("SENTRY_DSN is set but sentry-sdk is not installed: "
                                   "pip install 'longmeadow-stormwater[sentry]' (or unset SENTRY_DSN)") from None
    from stormwater import __version__ as _release

    sentry_sdk.init(dsn=SENTRY_DSN, release=f"stormwater@{_release}", send_default_pii=False,
                    environment="production" if PRODUCTION else "development")
# ---- end ops ----
