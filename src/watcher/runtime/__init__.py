"""The long-running service and what keeps it up: the service and its scheduler
(`service`), leadership among instances (`leader`), database engines and migrations (`db`),
the health verdict (`health`) and status file (`status`), the operators' HTTP listener
(`observability`, `http_listener`).
"""
