"""MkDocs hook: the site is named with markup's version, read from VERSION,
the one place it is written."""

from pathlib import Path


def on_config(config):
    version = (Path(config.config_file_path).parent / "VERSION").read_text().strip()
    config.site_name = f"markup {version}"
    return config
