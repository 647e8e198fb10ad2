"""Session rules: the protocol's own rules, judged on every run of every recording (a plain `record` session, a
replay, a scenario's runs), each side on what it sent itself. One file per rule under checks/; facts.py reads a
recording once for all of them. They report under the scenario name `session`."""

SCENARIO = "session"
