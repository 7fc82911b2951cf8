"""The poll cycle and its sources: the follows someone wants go to their source
(`sources`), are matched and stored (`poll`); failures are described and retried (`failures`),
failing OR-queries split (`failing_groups`), and a source that stops parsing is told to the
operator (`source_alerts`). A batch read whole is ranked for "Suggested for you"
(`suggested_batch`), in a process of its own (`ranking_process`).
"""
