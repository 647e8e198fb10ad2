"""Detectors the probe's checks share: carriers, markers, the attribution window, the ledger."""
