"""One module per session rule; the registry imports every one."""
