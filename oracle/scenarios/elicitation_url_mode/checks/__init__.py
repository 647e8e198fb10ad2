"""One file per check of this scenario; the registry imports every module here."""
