"""Sharing a recording: HAR and mitmproxy exports, a trimmed redacted copy, and a bug-report folder."""
