"""Running the system for real (issue 14): start-up checks (startup.py), the production server (``stormwater
serve``), backups and restores (``stormwater backup`` / ``restore``). See docs/deploy.md."""
