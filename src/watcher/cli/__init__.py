"""The `arxiv-watcher` command line: its commands (`command_line`, whose `main` is the console
script) and export and import (`takeout_commands`). `python -m watcher` runs the same `main`.
"""
