"""Orchestration and the command line: the scripted endpoint, the mitmdump launcher, the lab."""
