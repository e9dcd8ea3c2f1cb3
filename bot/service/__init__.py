"""The HTTP service (`triage serve`): one FastAPI app that every remote surface (API, GitHub, Slack) runs in."""
