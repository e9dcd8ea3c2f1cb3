"""The Slack bot: Bolt listeners (app, handlers), Block Kit answers (blocks), reports read from threads and files
(report), and the service route POST /slack/events (surface). `triage slack --socket` runs it over Socket Mode."""
