"""mitmproxy addons (Recorder, Rewriter) and the pure helpers they delegate to."""
